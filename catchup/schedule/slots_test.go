package schedule

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/adhocore/gronx"
)

func TestSlotsMatchBruteForceAroundTransitions(t *testing.T) {
	from := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, zone := range testZones {
		t.Run(zone, func(t *testing.T) {
			t.Parallel()
			loc := mustZone(t, zone)
			windows := transitionWindows(loc, from, to)
			rng := rand.New(rand.NewSource(int64(len(zone))))
			for _, expr := range testExprs {
				s := mustParse(t, expr, loc)
				for _, w := range windows {
					what := fmt.Sprintf("%s %q (%v, %v]", zone, expr, w.from, w.to)
					want := bruteForce(t, expr, loc, w.from, w.to)
					checkList(t, what, collect(s, w.from, w.to), want)
					checkPrevNext(t, what, s, w, want, rng)
				}
			}
			for i, expr := range testExtraExprs {
				s := mustParse(t, expr, loc)
				w := windows[i%len(windows)]
				w.to = w.to.AddDate(0, 1, 0) // reach a month end
				what := fmt.Sprintf("%s %q (%v, %v]", zone, expr, w.from, w.to)
				want := bruteForce(t, expr, loc, w.from, w.to)
				checkList(t, what, collect(s, w.from, w.to), want)
			}
		})
	}
}

func TestSlotsMatchBruteForceFullMonths(t *testing.T) {
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
			loc := mustZone(t, c.zone)
			s := mustParse(t, c.expr, loc)
			from, to := c.month.Add(-2*24*time.Hour), c.month.AddDate(0, 1, 2)
			checkList(t, c.zone+" "+c.expr, collect(s, from, to), bruteForce(t, c.expr, loc, from, to))
		})
	}
}

// TestDayMatcherAgreesWithGronx checks the bitset/day-mask matcher
// against gronx on random expressions and random wall times.
func TestDayMatcherAgreesWithGronx(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	g := gronx.New()
	for i := 0; i < 400; i++ {
		expr := randomExpr(rng)
		s, err := Parse(expr, time.UTC)
		if err != nil {
			continue
		}
		segs, _ := gronx.Segments(expr)
		var c cursor
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

// TestRandomExprsMatchBruteForce compares random expressions in
// random zones around random transitions with the brute force.
func TestRandomExprsMatchBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(2))
	var windows [][]window
	var locs []*time.Location
	for _, z := range testZones {
		loc := mustZone(t, z)
		locs = append(locs, loc)
		windows = append(windows, transitionWindows(loc, time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)))
	}
	for i := 0; i < 300; i++ {
		expr := randomExpr(rng)
		zi := rng.Intn(len(locs))
		s, err := Parse(expr, locs[zi])
		if err != nil {
			continue
		}
		w := windows[zi][rng.Intn(len(windows[zi]))]
		what := fmt.Sprintf("%s %q (%v, %v]", locs[zi], expr, w.from, w.to)
		checkList(t, what, collect(s, w.from, w.to), bruteForce(t, expr, locs[zi], w.from, w.to))
	}
}

// randomExpr builds a 5-field expression from pieces gronx understands.
func randomExpr(rng *rand.Rand) string {
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
