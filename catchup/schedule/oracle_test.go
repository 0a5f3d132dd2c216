package schedule

import (
	"math/rand"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the host has installed

	"github.com/adhocore/gronx"
)

var testZones = []string{
	"UTC",
	"America/New_York",
	"Europe/Berlin",
	"Australia/Lord_Howe",
	"America/Santiago",
	"America/Havana",
	"Asia/Kolkata",
	"Pacific/Chatham",   // +12:45, a 60-minute change at 02:45
	"Africa/Casablanca", // back in spring (Ramadan), forward after it
}

// testExprs are compared to the brute force in every zone around every
// transition of 2023-2026.
var testExprs = []string{
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

// testExtraExprs use gronx's L, W, # and ?, compared in fewer windows.
var testExtraExprs = []string{
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

func mustZone(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}

func mustParse(tb testing.TB, expr string, loc *time.Location) *Schedule {
	tb.Helper()
	s, err := Parse(expr, loc)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", expr, err)
	}
	return s
}

// bruteForce lists the slots in (from, to] by walking every UTC minute,
// matching the local wall time (rebuilt as a UTC time) with gronx and
// applying cronie's DST rules directly:
//   - fixed jobs (minute and hour not starting with * or ?) drop a wall time
//     already seen (the second occurrence in a fall back);
//   - when the wall clock jumps forward, a fixed job gets a slot at the
//     first minute after the jump if any skipped wall time matches.
//
// It needs zones whose offsets and transitions are whole minutes.
func bruteForce(tb testing.TB, expr string, loc *time.Location, from, to time.Time) []time.Time {
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
	segs[5] = sundayRanges(segs[5])
	due := func(w time.Time) bool { return cronieDue(segs, w) }
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

func collect(s *Schedule, from, to time.Time) []time.Time {
	var out []time.Time
	s.Slots(from, to, func(t time.Time) bool {
		out = append(out, t)
		return true
	})
	return out
}

// checkList checks the invariants of a slot list and compares it to want.
func checkList(tb testing.TB, what string, got, want []time.Time) {
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

type window struct{ from, to time.Time }

// transitionWindows returns (t-26h, t+26h] around every offset change
// of loc in [from, to), or two plain windows if there is none.
func transitionWindows(loc *time.Location, from, to time.Time) []window {
	var out []window
	for t := from; t.Before(to); {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			break
		}
		_, o1 := end.Add(-time.Second).In(loc).Zone()
		_, o2 := end.In(loc).Zone()
		if o1 != o2 {
			out = append(out, window{end.Add(-26 * time.Hour), end.Add(26 * time.Hour)})
		}
		t = end
	}
	if len(out) == 0 {
		out = append(out,
			window{time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC)},
			window{time.Date(2025, 12, 30, 12, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		)
	}
	return out
}

// checkPrevNext compares Prev and Next at many instants in w with the
// brute-force slots of w.
func checkPrevNext(t *testing.T, what string, s *Schedule, w window, want []time.Time, rng *rand.Rand) {
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

// cronieDue asks gronx about each field of segs at wall time w and
// combines the day fields as cronie does: both must match when either
// starts with '*' (or '?'), either one otherwise.
func cronieDue(segs []string, w time.Time) bool {
	c := &gronx.SegmentChecker{}
	c.SetRef(w)
	due := func(pos int) bool {
		ok, err := c.CheckDue(segs[pos], pos)
		return err == nil && ok
	}
	if !due(1) || !due(2) || !due(4) {
		return false
	}
	wild := func(seg string) bool { return strings.HasPrefix(seg, "*") || strings.HasPrefix(seg, "?") }
	if wild(segs[3]) || wild(segs[5]) {
		return due(3) && due(5)
	}
	return due(3) || due(5)
}
