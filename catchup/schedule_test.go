package catchup

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the host has installed

	"github.com/adhocore/gronx"
)

var schedTestZones = []string{
	"UTC",
	"America/New_York",
	"Europe/Berlin",
	"Australia/Lord_Howe",
	"America/Santiago",
	"America/Havana",
	"Asia/Kolkata",
}

// schedTestExprs are compared to the brute force in every zone around every
// transition of 2023-2026.
var schedTestExprs = []string{
	"0 2 * * *",
	"30 2 * * *",
	"0 * * * *",
	"*/15 * * * *",
	"15,45 1-3 * * *",
	"0 0 * * *",
	"0 0 1 * *",
	"*/7 2 * * 0",
	"@hourly",
	"@daily",
	"0 2 29 2 *",
	"30 0 * * *",
	"0 23 * * *",
	"45 1 * * *",
	"* 2 * * *",
	"10-20/5 0-3 * * *",
	"@midnight",
	"@weekly",
	"0 1 1-7 * 1",   // dom OR dow
	"0 0 */2 * SUN", // dom AND dow (dom starts with *)
	"0 2,3 * * *",   // a gap slot that is also a matching time
	"0,30 2 * * *",
	"0 0,1 * * *",
}

// schedTestExtraExprs use gronx's L, W, # and ?, compared in fewer windows.
var schedTestExtraExprs = []string{
	"0 12 L * *",
	"30 1 * * 5L",
	"0 9 15W * *",
	"0 0 * * 0#2",
	"0 2 ? * 0",
	"0 0 L * 0",
	"@monthly",
	"@yearly",
	"@annually",
	"0 2 * JAN,MAR-MAY,OCT-DEC SUN-TUE",
}

func schedLoadZone(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}

func schedMustParse(tb testing.TB, expr string, loc *time.Location) *Schedule {
	tb.Helper()
	s, err := ParseSchedule(expr, loc)
	if err != nil {
		tb.Fatalf("ParseSchedule(%q): %v", expr, err)
	}
	return s
}

// schedBrute lists the slots in (from, to] by walking every UTC minute,
// matching the local wall time (rebuilt as a UTC time) with gronx and
// applying cronie's DST rules directly:
//   - fixed jobs (minute and hour not starting with * or ?) drop a wall time
//     already seen (the second occurrence in a fall back);
//   - when the wall clock jumps forward, a fixed job gets a slot at the
//     first minute after the jump if any skipped wall time matches.
//
// It needs zones whose offsets and transitions are whole minutes.
func schedBrute(tb testing.TB, expr string, loc *time.Location, from, to time.Time) []time.Time {
	tb.Helper()
	gexpr := strings.Join(strings.Fields(expr), " ")
	if strings.HasPrefix(gexpr, "@") {
		gexpr = strings.ToLower(gexpr)
		if gexpr == "@midnight" {
			gexpr = "@daily"
		}
	}
	segs, err := gronx.Segments(gexpr)
	if err != nil || len(segs) != 6 {
		tb.Fatalf("gronx.Segments(%q) = %v, %v", gexpr, segs, err)
	}
	g := gronx.New()
	due := func(w time.Time) bool {
		g.C.SetRef(w)
		ok, err := g.SegmentsDue(segs)
		return err == nil && ok
	}
	wild := func(seg string) bool { return strings.HasPrefix(seg, "*") || strings.HasPrefix(seg, "?") }
	fixed := !wild(segs[1]) && !wild(segs[2])

	var out []time.Time
	start := from.UTC().Truncate(time.Minute).Add(-6 * time.Hour) // repeats and gaps span at most a few hours
	var seen map[int64]bool
	if fixed {
		seen = make(map[int64]bool, int(to.Sub(start)/time.Minute)+1)
	}
	var prevWall time.Time
	for u := start; !u.After(to); u = u.Add(time.Minute) {
		_, off := u.In(loc).Zone()
		wall := u.Add(time.Duration(off) * time.Second) // the local wall clock, as a UTC time
		slot := false
		if fixed && !prevWall.IsZero() && wall.Sub(prevWall) > time.Minute {
			for w := prevWall.Add(time.Minute); w.Before(wall); w = w.Add(time.Minute) {
				if due(w) {
					slot = true
					break
				}
			}
		}
		if due(wall) && !(fixed && seen[wall.Unix()]) {
			slot = true
		}
		if fixed {
			seen[wall.Unix()] = true
		}
		prevWall = wall
		if slot && u.After(from) {
			out = append(out, u)
		}
	}
	return out
}

func schedCollect(s *Schedule, from, to time.Time) []time.Time {
	var out []time.Time
	s.Slots(from, to, func(t time.Time) bool {
		out = append(out, t)
		return true
	})
	return out
}

// schedCheckList checks the invariants of a slot list and compares it to want.
func schedCheckList(tb testing.TB, what string, got, want []time.Time) {
	tb.Helper()
	for i, t := range got {
		if t.Location() != time.UTC || t.Second() != 0 || t.Nanosecond() != 0 {
			tb.Errorf("%s: slot %d = %v: want UTC, second 0", what, i, t)
		}
		if i > 0 && !got[i-1].Before(t) {
			tb.Errorf("%s: slots not strictly increasing: %v then %v", what, got[i-1], t)
		}
	}
	if len(got) == len(want) {
		same := true
		for i := range got {
			if !got[i].Equal(want[i]) {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	gs, ws := map[int64]bool{}, map[int64]bool{}
	for _, t := range got {
		gs[t.Unix()] = true
	}
	for _, t := range want {
		ws[t.Unix()] = true
	}
	var extra, missing []string
	for _, t := range got {
		if !ws[t.Unix()] && len(extra) < 10 {
			extra = append(extra, t.Format(time.RFC3339))
		}
	}
	for _, t := range want {
		if !gs[t.Unix()] && len(missing) < 10 {
			missing = append(missing, t.Format(time.RFC3339))
		}
	}
	tb.Errorf("%s: got %d slots, brute force %d; extra %v; missing %v", what, len(got), len(want), extra, missing)
}

type schedWindow struct{ from, to time.Time }

// schedTransitionWindows returns (t-26h, t+26h] around every offset change
// of loc in [from, to), or two plain windows if there is none.
func schedTransitionWindows(loc *time.Location, from, to time.Time) []schedWindow {
	var out []schedWindow
	for t := from; t.Before(to); {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			break
		}
		_, o1 := end.Add(-time.Second).In(loc).Zone()
		_, o2 := end.In(loc).Zone()
		if o1 != o2 {
			out = append(out, schedWindow{end.Add(-26 * time.Hour), end.Add(26 * time.Hour)})
		}
		t = end
	}
	if len(out) == 0 {
		out = append(out,
			schedWindow{time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC)},
			schedWindow{time.Date(2025, 12, 30, 12, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		)
	}
	return out
}

// schedCheckPrevNext compares Prev and Next at many instants in w with the
// brute-force slots of w.
func schedCheckPrevNext(t *testing.T, what string, s *Schedule, w schedWindow, want []time.Time, rng *rand.Rand) {
	t.Helper()
	var probes []time.Time
	for _, sl := range want {
		probes = append(probes, sl, sl.Add(-time.Nanosecond), sl.Add(500*time.Millisecond), sl.Add(time.Second-1))
		if len(probes) > 60 {
			break
		}
	}
	span := w.to.Sub(w.from)
	for i := 0; i < 30; i++ {
		probes = append(probes, w.from.Add(time.Duration(rng.Int63n(int64(span)))))
	}
	_, end := w.from.In(s.Location()).ZoneBounds()
	if !end.IsZero() && end.Before(w.to) {
		for _, d := range []time.Duration{-time.Hour, -time.Minute, -time.Second, 0, time.Second, 6 * time.Minute, 30 * time.Minute, 59 * time.Minute, time.Hour + 6*time.Minute} {
			probes = append(probes, end.Add(d))
		}
	}
	for _, p := range probes {
		if !p.After(w.from) || p.After(w.to) {
			continue
		}
		// Prev: latest brute-force slot <= p, if the window holds one.
		var wantPrev time.Time
		for _, sl := range want {
			if !sl.After(p) {
				wantPrev = sl
			}
		}
		got, ok := s.Prev(p)
		if !wantPrev.IsZero() {
			if !ok || !got.Equal(wantPrev) {
				t.Errorf("%s: Prev(%v) = %v, %v; want %v", what, p.UTC(), got, ok, wantPrev)
			}
		} else if ok && got.After(w.from) {
			t.Errorf("%s: Prev(%v) = %v; brute force has no slot in (%v, %v]", what, p.UTC(), got, w.from, p.UTC())
		}
		// Next: earliest brute-force slot > p, if the window holds one.
		var wantNext time.Time
		for _, sl := range want {
			if sl.After(p) {
				wantNext = sl
				break
			}
		}
		got, ok = s.Next(p)
		if !wantNext.IsZero() {
			if !ok || !got.Equal(wantNext) {
				t.Errorf("%s: Next(%v) = %v, %v; want %v", what, p.UTC(), got, ok, wantNext)
			}
		} else if ok && !got.After(w.to) {
			t.Errorf("%s: Next(%v) = %v; brute force has no slot in (%v, %v]", what, p.UTC(), got, p.UTC(), w.to)
		}
	}
}

func TestScheduleSlotsMatchBruteForceAroundTransitions(t *testing.T) {
	from := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, zone := range schedTestZones {
		t.Run(zone, func(t *testing.T) {
			t.Parallel()
			loc := schedLoadZone(t, zone)
			windows := schedTransitionWindows(loc, from, to)
			rng := rand.New(rand.NewSource(int64(len(zone))))
			for _, expr := range schedTestExprs {
				s := schedMustParse(t, expr, loc)
				for _, w := range windows {
					what := fmt.Sprintf("%s %q (%v, %v]", zone, expr, w.from, w.to)
					want := schedBrute(t, expr, loc, w.from, w.to)
					schedCheckList(t, what, schedCollect(s, w.from, w.to), want)
					schedCheckPrevNext(t, what, s, w, want, rng)
				}
			}
			for i, expr := range schedTestExtraExprs {
				s := schedMustParse(t, expr, loc)
				w := windows[i%len(windows)]
				w.to = w.to.AddDate(0, 1, 0) // reach a month end
				what := fmt.Sprintf("%s %q (%v, %v]", zone, expr, w.from, w.to)
				want := schedBrute(t, expr, loc, w.from, w.to)
				schedCheckList(t, what, schedCollect(s, w.from, w.to), want)
			}
		})
	}
}

func TestScheduleSlotsMatchBruteForceFullMonths(t *testing.T) {
	cases := []struct {
		zone, expr string
		month      time.Time
	}{
		{"Europe/Berlin", "*/15 * * * *", time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)},
		{"Europe/Berlin", "15,45 1-3 * * *", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"Australia/Lord_Howe", "*/15 * * * *", time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)},
		{"Australia/Lord_Howe", "15,45 1-3 * * *", time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)},
		{"America/Santiago", "0 0 * * *", time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)},
		{"America/Havana", "* 0 * * *", time.Date(2024, 11, 1, 0, 0, 0, 0, time.UTC)},
		{"America/New_York", "0 12 L * *", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Asia/Kolkata", "*/7 2 * * 0", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.zone+" "+c.expr, func(t *testing.T) {
			t.Parallel()
			loc := schedLoadZone(t, c.zone)
			s := schedMustParse(t, c.expr, loc)
			from, to := c.month.Add(-2*24*time.Hour), c.month.AddDate(0, 1, 2)
			schedCheckList(t, c.zone+" "+c.expr, schedCollect(s, from, to), schedBrute(t, c.expr, loc, from, to))
		})
	}
}

// TestScheduleDayMatcherAgreesWithGronx checks the bitset/day-mask matcher
// against gronx on random expressions and random wall times.
func TestScheduleDayMatcherAgreesWithGronx(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	g := gronx.New()
	for i := 0; i < 400; i++ {
		expr := schedRandomExpr(rng)
		s, err := ParseSchedule(expr, time.UTC)
		if err != nil {
			continue
		}
		segs, _ := gronx.Segments(expr)
		var c schedCursor
		for j := 0; j < 200; j++ {
			w := time.Date(2020+rng.Intn(10), time.Month(1+rng.Intn(12)), 1+rng.Intn(31), rng.Intn(24), rng.Intn(60), 0, 0, time.UTC)
			g.C.SetRef(w)
			want, err := g.SegmentsDue(segs)
			if err != nil {
				t.Fatalf("%q accepted but gronx errors at %v: %v", expr, w, err)
			}
			// nextWall(w, w) finds w iff w matches.
			wu, ok := s.nextWall(&c, w.Unix(), w.Unix())
			if (ok && wu == w.Unix()) != want {
				t.Fatalf("%q at %v: schedule matcher %v, gronx %v", expr, w, ok, want)
			}
		}
	}
}

// TestScheduleRandomExprsMatchBruteForce compares random expressions in
// random zones around random transitions with the brute force.
func TestScheduleRandomExprsMatchBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(2))
	var windows [][]schedWindow
	var locs []*time.Location
	for _, z := range schedTestZones {
		loc := schedLoadZone(t, z)
		locs = append(locs, loc)
		windows = append(windows, schedTransitionWindows(loc, time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)))
	}
	for i := 0; i < 300; i++ {
		expr := schedRandomExpr(rng)
		zi := rng.Intn(len(locs))
		s, err := ParseSchedule(expr, locs[zi])
		if err != nil {
			continue
		}
		w := windows[zi][rng.Intn(len(windows[zi]))]
		what := fmt.Sprintf("%s %q (%v, %v]", locs[zi], expr, w.from, w.to)
		schedCheckList(t, what, schedCollect(s, w.from, w.to), schedBrute(t, expr, locs[zi], w.from, w.to))
	}
}

// schedRandomExpr builds a 5-field expression from pieces gronx understands.
func schedRandomExpr(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	num := func(lo, hi int) string { return fmt.Sprint(lo + rng.Intn(hi-lo+1)) }
	part := func(lo, hi int) string {
		switch rng.Intn(6) {
		case 0:
			return "*"
		case 1:
			return "*/" + num(1, hi)
		case 2:
			a := lo + rng.Intn(hi-lo+1)
			return fmt.Sprintf("%d-%d", a, a+rng.Intn(hi-a+1))
		case 3:
			a := lo + rng.Intn(hi-lo+1)
			return fmt.Sprintf("%d-%d/%d", a, a+rng.Intn(hi-a+1), 1+rng.Intn(5))
		default:
			return num(lo, hi)
		}
	}
	list := func(lo, hi int) string {
		n := 1 + rng.Intn(3)
		ps := make([]string, n)
		for i := range ps {
			ps[i] = part(lo, hi)
		}
		return strings.Join(ps, ",")
	}
	dom := list(1, 31)
	switch rng.Intn(6) {
	case 0:
		dom = pick("L", "15W", "1W", "31W", "?", "L,5", "30W,L")
	case 1:
		dom = "*"
	}
	dow := list(0, 7)
	switch rng.Intn(5) {
	case 0:
		dow = pick("5L", "0#1", "1#5", "7#2", "?", "MON-FRI", "SUN,SAT", "6L,1#1")
	case 1, 2:
		dow = "*"
	}
	mon := list(1, 12)
	if rng.Intn(2) == 0 {
		mon = "*"
	}
	return strings.Join([]string{list(0, 59), list(0, 23), dom, mon, dow}, " ")
}

func TestScheduleSpecificCases(t *testing.T) {
	berlin := "Europe/Berlin"
	utc := func(s string) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UTC()
	}
	// localDay is (start-1s, end-1s] of a local calendar day.
	localDay := func(loc *time.Location, y int, m time.Month, d int) (time.Time, time.Time) {
		return time.Date(y, m, d, 0, 0, 0, 0, loc).Add(-time.Second), time.Date(y, m, d+1, 0, 0, 0, 0, loc).Add(-time.Second)
	}
	type dayCase struct {
		name, zone, expr string
		y                int
		m                time.Month
		d                int
		count            int      // slots that local day
		slots            []string // if set, exactly these
	}
	for _, c := range []dayCase{
		{name: "berlin fall back hourly has 25", zone: berlin, expr: "0 * * * *", y: 2024, m: 10, d: 27, count: 25},
		{name: "berlin fall back 02:30 once, first", zone: berlin, expr: "30 2 * * *", y: 2024, m: 10, d: 27, slots: []string{"2024-10-27T00:30:00Z"}},
		{name: "berlin fall back */30 in 2h twice", zone: berlin, expr: "*/30 2 * * *", y: 2024, m: 10, d: 27, slots: []string{"2024-10-27T00:00:00Z", "2024-10-27T00:30:00Z", "2024-10-27T01:00:00Z", "2024-10-27T01:30:00Z"}},
		{name: "berlin spring 02:30 moves to 03:00 CEST", zone: berlin, expr: "30 2 * * *", y: 2024, m: 3, d: 31, slots: []string{"2024-03-31T01:00:00Z"}},
		{name: "berlin spring hourly has 23", zone: berlin, expr: "0 * * * *", y: 2024, m: 3, d: 31, count: 23},
		{name: "berlin spring skipped times collapse", zone: berlin, expr: "15,45 1-3 * * *", y: 2024, m: 3, d: 31, slots: []string{"2024-03-31T00:15:00Z", "2024-03-31T00:45:00Z", "2024-03-31T01:00:00Z", "2024-03-31T01:15:00Z", "2024-03-31T01:45:00Z"}},
		{name: "berlin spring 03:00 job and gap job share the instant", zone: berlin, expr: "0 2,3 * * *", y: 2024, m: 3, d: 31, slots: []string{"2024-03-31T01:00:00Z"}},
		{name: "new york spring 02:30 -> 07:00Z", zone: "America/New_York", expr: "30 2 * * *", y: 2024, m: 3, d: 10, slots: []string{"2024-03-10T07:00:00Z"}},
		{name: "new york fall back 01:30 first", zone: "America/New_York", expr: "30 1 * * *", y: 2024, m: 11, d: 3, slots: []string{"2024-11-03T05:30:00Z"}},
		{name: "lord howe spring 02:15 moves to 02:30", zone: "Australia/Lord_Howe", expr: "15 2 * * *", y: 2024, m: 10, d: 6, slots: []string{"2024-10-05T15:30:00Z"}},
		{name: "lord howe spring 02:45 exists", zone: "Australia/Lord_Howe", expr: "45 2 * * *", y: 2024, m: 10, d: 6, slots: []string{"2024-10-05T15:45:00Z"}},
		{name: "lord howe spring quarter hours 94", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", y: 2024, m: 10, d: 6, count: 94},
		{name: "lord howe fall back 01:45 once", zone: "Australia/Lord_Howe", expr: "45 1 * * *", y: 2024, m: 4, d: 7, slots: []string{"2024-04-06T14:45:00Z"}},
		{name: "lord howe fall back quarter hours 98", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", y: 2024, m: 4, d: 7, count: 98},
		{name: "lord howe fall back hourly 24", zone: "Australia/Lord_Howe", expr: "0 * * * *", y: 2024, m: 4, d: 7, count: 24},
		{name: "santiago spring midnight moves to 01:00", zone: "America/Santiago", expr: "0 0 * * *", y: 2024, m: 9, d: 8, slots: []string{"2024-09-08T04:00:00Z"}},
		{name: "santiago fall back 23:30 once", zone: "America/Santiago", expr: "30 23 * * *", y: 2024, m: 4, d: 6, slots: []string{"2024-04-07T02:30:00Z"}},
		{name: "santiago fall back midnight once", zone: "America/Santiago", expr: "0 0 * * *", y: 2024, m: 4, d: 7, slots: []string{"2024-04-07T04:00:00Z"}},
		{name: "havana spring midnight moves to 01:00", zone: "America/Havana", expr: "0 0 * * *", y: 2024, m: 3, d: 10, slots: []string{"2024-03-10T05:00:00Z"}},
		{name: "havana fall back 00:30 once", zone: "America/Havana", expr: "30 0 * * *", y: 2024, m: 11, d: 3, slots: []string{"2024-11-03T04:30:00Z"}},
		{name: "havana fall back every minute of 0h twice", zone: "America/Havana", expr: "* 0 * * *", y: 2024, m: 11, d: 3, count: 120},
		{name: "kolkata half hour offset", zone: "Asia/Kolkata", expr: "0 2 * * *", y: 2024, m: 6, d: 1, slots: []string{"2024-05-31T20:30:00Z"}},
		{name: "leap day", zone: berlin, expr: "0 2 29 2 *", y: 2024, m: 2, d: 29, slots: []string{"2024-02-29T01:00:00Z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			loc := schedLoadZone(t, c.zone)
			s := schedMustParse(t, c.expr, loc)
			from, to := localDay(loc, c.y, c.m, c.d)
			got := schedCollect(s, from, to)
			schedCheckList(t, c.name, got, schedBrute(t, c.expr, loc, from, to))
			if c.slots != nil {
				var want []time.Time
				for _, sl := range c.slots {
					want = append(want, utc(sl))
				}
				schedCheckList(t, c.name+" (expected)", got, want)
			} else if len(got) != c.count {
				t.Errorf("%s: %d slots, want %d", c.name, len(got), c.count)
			}
		})
	}

	t.Run("santiago midnight every day 2023-2026", func(t *testing.T) {
		loc := schedLoadZone(t, "America/Santiago")
		s := schedMustParse(t, "0 0 * * *", loc)
		perDay := map[string]int{}
		s.Slots(time.Date(2023, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second), time.Date(2027, 1, 1, 0, 0, 0, 0, loc).Add(-time.Second), func(sl time.Time) bool {
			perDay[sl.In(loc).Format("2006-01-02")]++
			return true
		})
		for d := time.Date(2023, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() < 2027; d = d.AddDate(0, 0, 1) {
			if n := perDay[d.Format("2006-01-02")]; n != 1 {
				t.Errorf("%s: %d slots", d.Format("2006-01-02"), n)
			}
		}
	})

	// Cases where gronx v1.20.4's own PrevTickBefore/NextTickAfter fail.
	type refCase struct {
		name, zone, expr string
		prev             bool
		ref, want        string
	}
	for _, c := range []refCase{
		{name: "gronx prev inside repeated hour (first 02:06)", zone: berlin, expr: "0 * * * *", prev: true, ref: "2024-10-27T00:06:00Z", want: "2024-10-27T00:00:00Z"},
		{name: "gronx prev inside repeated hour (second 02:06)", zone: berlin, expr: "0 * * * *", prev: true, ref: "2024-10-27T01:06:00Z", want: "2024-10-27T01:00:00Z"},
		{name: "gronx prev fixed job after repeated hour", zone: berlin, expr: "30 2 * * *", prev: true, ref: "2024-10-27T01:45:00Z", want: "2024-10-27T00:30:00Z"},
		{name: "gronx next havana midnight", zone: "America/Havana", expr: "0 0 * * *", ref: "2024-03-09T17:00:00Z", want: "2024-03-10T05:00:00Z"},
		{name: "gronx next havana hourly across gap", zone: "America/Havana", expr: "0 * * * *", ref: "2024-03-10T04:30:00Z", want: "2024-03-10T05:00:00Z"},
		{name: "gronx next santiago midnight", zone: "America/Santiago", expr: "0 0 * * *", ref: "2024-09-07T16:00:00Z", want: "2024-09-08T04:00:00Z"},
		{name: "gronx next santiago hourly across gap", zone: "America/Santiago", expr: "0 * * * *", ref: "2024-09-08T03:30:00Z", want: "2024-09-08T04:00:00Z"},
		{name: "gronx next lord howe spring", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", ref: "2024-10-05T15:20:00Z", want: "2024-10-05T15:30:00Z"},
		{name: "gronx next lord howe fall back repeats", zone: "Australia/Lord_Howe", expr: "*/15 * * * *", ref: "2024-04-06T14:50:00Z", want: "2024-04-06T15:00:00Z"},
		{name: "gronx next lord howe fall back fixed skips", zone: "Australia/Lord_Howe", expr: "45 1 * * *", ref: "2024-04-06T14:50:00Z", want: "2024-04-07T15:15:00Z"},
		{name: "gronx prev first second of due minute", zone: "UTC", expr: "* * * * *", prev: true, ref: "2024-05-01T10:00:00.5Z", want: "2024-05-01T10:00:00Z"},
		{name: "prev exactly at slot", zone: "UTC", expr: "0 10 * * *", prev: true, ref: "2024-05-01T10:00:00Z", want: "2024-05-01T10:00:00Z"},
		{name: "prev just before slot", zone: "UTC", expr: "0 10 * * *", prev: true, ref: "2024-05-01T09:59:59.999999999Z", want: "2024-04-30T10:00:00Z"},
		{name: "next exactly at slot is later", zone: "UTC", expr: "0 10 * * *", ref: "2024-05-01T10:00:00Z", want: "2024-05-02T10:00:00Z"},
		{name: "next inside first second", zone: "UTC", expr: "* * * * *", ref: "2024-05-01T10:00:00.5Z", want: "2024-05-01T10:01:00Z"},
		{name: "prev yearly far back", zone: berlin, expr: "@yearly", prev: true, ref: "2024-12-31T20:00:00Z", want: "2023-12-31T23:00:00Z"},
		{name: "prev leap day 4 years back", zone: berlin, expr: "0 2 29 2 *", prev: true, ref: "2028-02-28T12:00:00Z", want: "2024-02-29T01:00:00Z"},
		{name: "next leap day", zone: berlin, expr: "0 2 29 2 *", ref: "2024-03-01T00:00:00Z", want: "2028-02-29T01:00:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := schedMustParse(t, c.expr, schedLoadZone(t, c.zone))
			f := s.Next
			if c.prev {
				f = s.Prev
			}
			got, ok := f(utc(c.ref))
			if !ok || !got.Equal(utc(c.want)) || got.Location() != time.UTC {
				t.Errorf("%s(%s) = %v, %v; want %s", map[bool]string{true: "Prev", false: "Next"}[c.prev], c.ref, got, ok, c.want)
			}
		})
	}
}

func TestSchedulePrevNextNone(t *testing.T) {
	// February 30th never comes.
	s := schedMustParse(t, "0 0 30 2 *", time.UTC)
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	if got, ok := s.Prev(now); ok {
		t.Errorf("Prev = %v, want none", got)
	}
	if got, ok := s.Next(now); ok {
		t.Errorf("Next = %v, want none", got)
	}
	n := 0
	s.Slots(now.AddDate(-10, 0, 0), now, func(time.Time) bool { n++; return true })
	if n != 0 {
		t.Errorf("Slots: %d, want 0", n)
	}
	// "Feb 29 AND Sunday" (dow starting with */ intersects): 2004, 2032, 2060.
	rare := schedMustParse(t, "0 0 29 2 */7", time.UTC)
	slot := time.Date(2032, 2, 29, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		prev bool
		ref  time.Time
		ok   bool
	}{
		{true, time.Date(2037, 2, 28, 23, 59, 59, 0, time.UTC), true},
		{true, time.Date(2037, 3, 1, 0, 0, 1, 0, time.UTC), false},
		{true, time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{false, time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), true},
		{false, time.Date(2027, 2, 28, 23, 59, 59, 0, time.UTC), false},
		{false, time.Date(2032, 2, 29, 0, 0, 0, 0, time.UTC), false},
	} {
		f := rare.Next
		if c.prev {
			f = rare.Prev
		}
		got, ok := f(c.ref)
		if ok != c.ok || (ok && !got.Equal(slot)) {
			t.Errorf("prev=%v ref %v: %v, %v; want ok=%v", c.prev, c.ref, got, ok, c.ok)
		}
	}
	leapOnly := schedMustParse(t, "0 0 29 2 *", time.UTC)
	if got, ok := leapOnly.Prev(time.Date(2029, 2, 28, 0, 0, 0, 0, time.UTC)); !ok || !got.Equal(time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("leap Prev = %v, %v", got, ok)
	}
	// Day 29 OR Monday: the first Monday comes first.
	or := schedMustParse(t, "0 0 29 * 1", time.UTC)
	if got, ok := or.Next(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)); !ok || !got.Equal(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Next dom-or-dow = %v, %v; want the first Monday", got, ok)
	}
}

func TestScheduleSlotsStopsAndEdges(t *testing.T) {
	s := schedMustParse(t, "* * * * *", time.UTC)
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	s.Slots(from, from.Add(time.Hour), func(sl time.Time) bool {
		n++
		return n < 5
	})
	if n != 5 {
		t.Errorf("Slots did not stop: %d calls", n)
	}
	// (after, upTo]: a slot at after is excluded, a slot at upTo included.
	got := schedCollect(s, from, from.Add(2*time.Minute))
	if len(got) != 2 || !got[0].Equal(from.Add(time.Minute)) || !got[1].Equal(from.Add(2*time.Minute)) {
		t.Errorf("Slots(after, upTo] = %v", got)
	}
	if got := schedCollect(s, from, from); len(got) != 0 {
		t.Errorf("empty range: %v", got)
	}
	if got := schedCollect(s, from.Add(time.Hour), from); len(got) != 0 {
		t.Errorf("reversed range: %v", got)
	}
	// Extreme times must not panic or hang.
	s.Slots(time.Time{}, time.Time{}.Add(time.Hour), func(time.Time) bool { return true })
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	s.Slots(far, far.AddDate(1, 0, 0), func(time.Time) bool { return true })
	s.Prev(time.Time{})
	s.Next(far)
	b := schedMustParse(t, "@yearly", schedLoadZone(t, "Europe/Berlin"))
	b.Prev(time.Time{})
	b.Next(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC))
	b.Slots(time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), func(time.Time) bool { return true })
	// Input zones don't matter.
	ny := schedLoadZone(t, "America/New_York")
	a := schedCollect(s, from.In(ny), from.Add(time.Hour).In(ny))
	if len(a) != 60 || a[0].Location() != time.UTC {
		t.Errorf("zoned inputs: %d slots", len(a))
	}
}

func TestScheduleAccessorsAndAliases(t *testing.T) {
	loc := schedLoadZone(t, "Europe/Berlin")
	s := schedMustParse(t, "  0 2 * * *\t", loc)
	if s.Expr() != "0 2 * * *" || s.Location() != loc {
		t.Errorf("Expr/Location = %q, %v", s.Expr(), s.Location())
	}
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for alias, expr := range map[string]string{
		"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
		"@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
		"@DAILY": "0 0 * * *",
	} {
		a, b := schedCollect(schedMustParse(t, alias, loc), from, to), schedCollect(schedMustParse(t, expr, loc), from, to)
		schedCheckList(t, alias, a, b)
	}
}

func TestScheduleParseErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"@reboot", `cron expression "@reboot" is not supported: catchup needs a time-based schedule (5 fields or @hourly/@daily/@weekly/@monthly/@yearly)`},
		{"* * * * * *", `cron expression "* * * * * *" has 6 fields, want 5 (minute hour day-of-month month day-of-week)`},
		{"0 0 0 1 1 * 2025", `has 7 fields, want 5`},
		{"0 0 1 1 * 2025", `has 6 fields, want 5`},
		{"", `cron expression is empty`},
		{"   ", `cron expression is empty`},
		{"61 * * * *", `cron expression "61 * * * *" has an invalid minute field "61"`},
		{"a b c d e", `has an invalid minute field "a"`},
		{"* 24 * * *", `invalid hour field "24"`},
		{"* * 0 * *", `invalid day-of-month field "0"`},
		{"* * * 13 *", `invalid month field "13"`},
		{"* * * * 8", `invalid day-of-week field "8"`},
		{"5,x * * * *", `invalid minute field "5,x"`},
		{"*/0 * * * *", `invalid minute field "*/0"`},
		{"1,,2 * * * *", `invalid minute field "1,,2"`},
		{"* * * *", `has 4 fields, want 5`},
		{"@every 1h", `is not supported`},
		{"@always", `is not supported`},
		{"@everysecond", `is not supported`},
		{"@5minutes", `is not supported`},
		{"* * 1-5-L * *", `invalid day-of-month field`},
		{"* * * * L", `invalid day-of-week field "L"`},
	}
	for _, c := range cases {
		_, err := ParseSchedule(c.expr, time.UTC)
		if err == nil {
			t.Errorf("ParseSchedule(%q): no error", c.expr)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSchedule(%q) = %q, want it to contain %q", c.expr, err, c.want)
		}
		if !errors.Is(err, errScheduleInvalid) {
			t.Errorf("ParseSchedule(%q): error %T is not errScheduleInvalid", c.expr, err)
		}
		if msg := err.Error(); strings.ToLower(msg[:1]) != msg[:1] {
			t.Errorf("ParseSchedule(%q): message not lowercase: %q", c.expr, msg)
		}
	}
	if _, err := ParseSchedule("0 * * * *", nil); err == nil || !strings.Contains(err.Error(), "time zone") {
		t.Errorf("nil location: %v", err)
	}
	for _, ok := range []string{"0 0 L * *", "0 0 15W * *", "0 0 * * 5L", "0 0 * * 1#3", "0 0 ? * MON", "0 0 * jan-mar mon-fri", "0 0 * * 7", "0-59/10 */2 1,15 * *"} {
		if _, err := ParseSchedule(ok, time.UTC); err != nil {
			t.Errorf("ParseSchedule(%q): %v", ok, err)
		}
	}
}

func TestScheduleConcurrentUse(t *testing.T) {
	s := schedMustParse(t, "*/5 * * * *", schedLoadZone(t, "Europe/Berlin"))
	from := time.Date(2024, 10, 26, 0, 0, 0, 0, time.UTC)
	want := schedCollect(s, from, from.Add(48*time.Hour))
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := schedCollect(s, from, from.Add(48*time.Hour))
			if len(got) != len(want) {
				t.Errorf("concurrent Slots: %d, want %d", len(got), len(want))
			}
			s.Prev(from)
			s.Next(from)
		}()
	}
	wg.Wait()
}

func BenchmarkSlotsEveryMinute30Days(b *testing.B) {
	s := schedMustParse(b, "* * * * *", schedLoadZone(b, "Europe/Berlin"))
	from := time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 30)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		s.Slots(from, to, func(time.Time) bool { n++; return true })
		if n != 43200 {
			b.Fatalf("%d slots", n)
		}
	}
}

func BenchmarkSlotsDaily10Years(b *testing.B) {
	s := schedMustParse(b, "30 2 * * *", schedLoadZone(b, "Europe/Berlin"))
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(10, 0, 0)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		s.Slots(from, to, func(time.Time) bool { n++; return true })
		if n != 3653 {
			b.Fatalf("%d slots", n)
		}
	}
}

func BenchmarkPrev(b *testing.B) {
	loc := schedLoadZone(b, "Europe/Berlin")
	now := time.Date(2024, 10, 27, 1, 6, 0, 0, time.UTC)
	for _, expr := range []string{"* * * * *", "0 * * * *", "30 2 * * *", "@yearly", "0 2 29 2 *"} {
		s := schedMustParse(b, expr, loc)
		b.Run(expr, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := s.Prev(now); !ok {
					b.Fatal("no slot")
				}
			}
		})
	}
}
