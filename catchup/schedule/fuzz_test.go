package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/adhocore/gronx"
)

// FuzzParseSchedule: Parse never panics; what it accepts gronx
// accepts, and its slots over a day around a DST change are strictly
// increasing whole minutes equal to the brute force.
func FuzzParseSchedule(f *testing.F) {
	for _, seed := range []string{
		"* * * * *", "0 2 * * *", "*/15 * * * *", "15,45 1-3 * * *", "0 0 L * *",
		"0 0 15W * *", "0 0 * * 5L", "0 0 * * 1#2", "0 0 ? * MON-FRI", "0 0 29 2 *",
		"@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually",
		"@reboot", "@always", "@every 1h", "", " ", "* * * * * *", "0 0 0 1 1 * 2025",
		"0 0 1 1 * 2025", "61 * * * *", "a b c d e", "5,x * * * *", "*/0 * * * *",
		"1,,2 * * * *", "* * 1-5-L * *", "* * * * L", "-1 * * * *", "1-/2 * * * *",
		"*/-1 * * * *", "0/5 * * * *", "5-1 * * * *", "* * * * 7-0", "* * * * 4-7/3",
		"* * * * 7/2", "* * LW * *", "* * 1#1 * *", "* * * * 1#6", "0\t0\n* * *",
		"0\u00a00 * * *", "?,5 ? ? ? ?", "* * * jan,DEC sun", "99999999999999999999 * * * *",
		"*/99999999999999999999 * * * *", "0 0 1-31/40 * *", "@", "@@daily", "@DAILY",
	} {
		f.Add(seed)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		f.Fatal(err)
	}
	from := time.Date(2024, 10, 26, 12, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := Parse(expr, berlin)
		if err != nil {
			if msg := err.Error(); msg == "" || !strings.HasPrefix(msg, "cron expression") {
				t.Fatalf("Parse(%q): unclear error %q", expr, msg)
			}
			return
		}
		if s.Expr() != strings.TrimSpace(expr) {
			t.Fatalf("Expr() = %q for %q", s.Expr(), expr)
		}
		if !strings.HasPrefix(s.Expr(), "@") && !gronx.IsValid(strings.Join(strings.Fields(expr), " ")) {
			t.Fatalf("accepted %q, which gronx rejects", expr)
		}
		got := collect(s, from, to)
		checkList(t, expr, got, bruteForce(t, expr, berlin, from, to))
		for _, p := range []time.Time{from.Add(13 * time.Hour), from.Add(13*time.Hour + 30*time.Minute + 500*time.Millisecond)} {
			if prev, ok := s.Prev(p); ok && (prev.After(p) || prev.Second() != 0) {
				t.Fatalf("%q: Prev(%v) = %v", expr, p, prev)
			}
			if next, ok := s.Next(p); ok && (!next.After(p) || next.Second() != 0) {
				t.Fatalf("%q: Next(%v) = %v", expr, p, next)
			}
		}
	})
}

// FuzzSlotsMatchBruteForce compares a 2-day window of a known expression in
// a known zone, starting anywhere in 2000-2040, with the brute force, and
// Prev/Next inside it.
func FuzzSlotsMatchBruteForce(f *testing.F) {
	exprs := append(append([]string{}, testExprs...), testExtraExprs...)
	var locs []*time.Location
	for _, z := range testZones {
		loc, err := time.LoadLocation(z)
		if err != nil {
			f.Fatal(err)
		}
		locs = append(locs, loc)
	}
	seeds := []struct {
		expr, zone uint
		start      int64
	}{
		{0, 2, time.Date(2024, 10, 26, 0, 0, 0, 0, time.UTC).Unix()},
		{1, 2, time.Date(2024, 3, 30, 0, 0, 0, 0, time.UTC).Unix()},
		{2, 3, time.Date(2024, 4, 6, 0, 0, 0, 0, time.UTC).Unix()},
		{3, 3, time.Date(2024, 10, 5, 0, 0, 0, 0, time.UTC).Unix()},
		{4, 1, time.Date(2024, 3, 9, 12, 34, 56, 0, time.UTC).Unix()},
		{5, 4, time.Date(2024, 9, 7, 0, 0, 0, 0, time.UTC).Unix()},
		{5, 5, time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC).Unix()},
		{11, 5, time.Date(2024, 11, 2, 0, 0, 0, 0, time.UTC).Unix()},
		{12, 4, time.Date(2024, 4, 6, 0, 0, 0, 0, time.UTC).Unix()},
		{10, 6, time.Date(2028, 2, 28, 0, 0, 0, 0, time.UTC).Unix()},
		{7, 0, 0},
		{20, 2, -1},
	}
	for _, s := range seeds {
		f.Add(s.expr, s.zone, s.start)
	}
	lo := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, exprIdx, zoneIdx uint, start int64) {
		expr := exprs[exprIdx%uint(len(exprs))]
		loc := locs[zoneIdx%uint(len(locs))]
		if start < lo || start >= hi {
			start = lo + int64(uint64(start)%uint64(hi-lo))
		}
		from := time.Unix(start, 0).UTC()
		to := from.Add(48 * time.Hour)
		s, err := Parse(expr, loc)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(t, expr, loc, from, to)
		what := expr + " in " + loc.String() + " from " + from.Format(time.RFC3339)
		checkList(t, what, collect(s, from, to), want)
		// Prev/Next at the window's middle and at a slot's first second.
		probes := []time.Time{from.Add(24 * time.Hour), from.Add(24*time.Hour + 7*time.Minute + 300*time.Millisecond)}
		if len(want) > 0 {
			probes = append(probes, want[len(want)/2], want[len(want)/2].Add(999*time.Millisecond), want[len(want)/2].Add(-time.Nanosecond))
		}
		for _, p := range probes {
			var wantPrev, wantNext time.Time
			for _, sl := range want {
				if !sl.After(p) {
					wantPrev = sl
				} else if wantNext.IsZero() {
					wantNext = sl
				}
			}
			if !wantPrev.IsZero() {
				if got, ok := s.Prev(p); !ok || !got.Equal(wantPrev) {
					t.Errorf("%s: Prev(%v) = %v, %v; want %v", what, p, got, ok, wantPrev)
				}
			}
			if !wantNext.IsZero() {
				if got, ok := s.Next(p); !ok || !got.Equal(wantNext) {
					t.Errorf("%s: Next(%v) = %v, %v; want %v", what, p, got, ok, wantNext)
				}
			}
		}
	})
}
