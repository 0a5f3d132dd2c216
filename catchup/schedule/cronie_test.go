package schedule

// The cron syntax rules catchup takes from cronie, checked against an
// independent brute-force reading of cronie's parser (src/entry.c): fields
// into bitsets, DOM_STAR/DOW_STAR from each day field's first character,
// both day fields ANDed when either flag is set and ORed otherwise, Sunday
// as 0 or 7, and a day-of-week range ending on Sunday read as ending on 7.

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"
)

var cronieTestExprs = []string{
	"0 0 13 * *,5",    // dow list starting with '*': both fields must match
	"0 0 12 * *,5",    //
	"0 0 *,13 * 5",    // dom list starting with '*': both
	"0 0 13 * 5",      // both restricted: either
	"30 4 1,15 * 5",   // crontab(5)'s example
	"0 0 */3 * 5",     // dom starts with '*': both
	"0 0 1-7 * */2",   // dow starts with '*': both
	"0 0 * * fri-sun", // a range ending on Sunday
	"0 0 * * 5-0",
	"0 0 * * SAT-SUN",
	"0 0 * * 5-0/2",
	"0 0 * * 0-7",
	"0 0 * * 7",
	"15 10 * jan-mar mon",
	"0 0 31 * *",
	"0 0 29 2 *",
	"0 0 29 2 */7",
	"0 0 1 * 0",
	"0 0 L * *",
}

// cronieRandomField is a random list of the forms both readings share.
func cronieRandomField(rng *rand.Rand, low, high int, names []string, isDow bool) string {
	pick := func() string {
		n := low + rng.Intn(high-low+1)
		if names != nil && rng.Intn(3) == 0 {
			return names[n-low]
		}
		return strconv.Itoa(n)
	}
	var parts []string
	for i := 0; i < 1+rng.Intn(3); i++ {
		switch rng.Intn(7) {
		case 0:
			parts = append(parts, "*")
		case 1:
			parts = append(parts, fmt.Sprintf("*/%d", 1+rng.Intn(high/2+1)))
		case 2, 3:
			parts = append(parts, pick())
		case 4:
			a, b := low+rng.Intn(high-low+1), low+rng.Intn(high-low+1)
			if a > b {
				a, b = b, a
			}
			parts = append(parts, fmt.Sprintf("%d-%d", a, b))
		case 5:
			a := low + rng.Intn(high-low+1)
			parts = append(parts, fmt.Sprintf("%d-%d/%d", a, a+rng.Intn(high-a+1), 1+rng.Intn(5)))
		default:
			if isDow {
				parts = append(parts, fmt.Sprintf("%s-%s", cronieDays[1+rng.Intn(6)], "sun"))
			} else {
				parts = append(parts, pick())
			}
		}
	}
	return strings.Join(parts, ",")
}

func cronieRandomExpr(rng *rand.Rand) string {
	return strings.Join([]string{
		cronieRandomField(rng, 0, 59, nil, false),
		cronieRandomField(rng, 0, 23, nil, false),
		cronieRandomField(rng, 1, 31, nil, false),
		cronieRandomField(rng, 1, 12, cronieMonths, false),
		cronieRandomField(rng, 0, 7, cronieDays, true),
	}, " ")
}

// TestScheduleFollowsCronie compares the slots of fixed and random
// expressions over a leap year (UTC) with the brute-force cronie reading.
func TestScheduleFollowsCronie(t *testing.T) {
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	exprs := append([]string{}, cronieTestExprs...)
	rng := rand.New(rand.NewSource(11))
	for i := 0; i < 200; i++ {
		exprs = append(exprs, cronieRandomExpr(rng))
	}
	compared := 0
	for _, expr := range exprs {
		e, ok := parseCronie(expr)
		if !ok {
			continue // L and friends: gronx extensions, not cronie
		}
		want := e.slots(from, to)
		if _, fires := e.nextDay(from); !fires {
			continue // never fires: TestScheduleNeverFires
		}
		s, err := Parse(expr, time.UTC)
		if err != nil {
			t.Errorf("%q: cronie accepts it, Parse: %v", expr, err)
			continue
		}
		checkList(t, expr, collect(s, from.Add(-time.Second), to.Add(-time.Second)), want)
		compared++
	}
	if compared < 150 {
		t.Fatalf("only %d expressions compared", compared)
	}
}

func TestScheduleDayFieldsAsCronie(t *testing.T) {
	for _, c := range []struct {
		expr string
		from string
		want []string // the next slots after from
	}{
		// 2026-03-01 is a Sunday; March's Fridays: 6, 13, 20, 27.
		{"0 0 12 * *,5", "2026-03-01", []string{"2026-03-12", "2026-04-12", "2026-05-12"}},
		{"0 0 12 * 5", "2026-03-01", []string{"2026-03-06", "2026-03-12", "2026-03-13", "2026-03-20"}},
		{"0 0 *,12 * 5", "2026-03-01", []string{"2026-03-06", "2026-03-13", "2026-03-20"}},
		{"0 0 * * fri-sun", "2026-03-02", []string{"2026-03-06", "2026-03-07", "2026-03-08", "2026-03-13"}},
		{"0 0 * * 5-0", "2026-03-02", []string{"2026-03-06", "2026-03-07", "2026-03-08", "2026-03-13"}},
		{"0 0 * * sat-sun", "2026-03-02", []string{"2026-03-07", "2026-03-08", "2026-03-14"}},
		{"0 0 * * 5-0/2", "2026-03-02", []string{"2026-03-06", "2026-03-08", "2026-03-13"}},
		{"0 0 * * 0-7", "2026-03-02", []string{"2026-03-03", "2026-03-04"}},
	} {
		t.Run(c.expr, func(t *testing.T) {
			s, err := Parse(c.expr, time.UTC)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			at, _ := time.Parse("2006-01-02", c.from)
			for _, w := range c.want {
				got, ok := s.Next(at)
				want, _ := time.Parse("2006-01-02", w)
				if !ok || !got.Equal(want) {
					t.Fatalf("Next(%s) = %v, %v; want %s", at.Format(time.RFC3339), got, ok, w)
				}
				at = got
			}
		})
	}
}

func TestScheduleRefusesWhatCronieRefuses(t *testing.T) {
	for _, expr := range []string{
		"0 0 * * 5-1", // descending, not ending on Sunday
		"0 0 * * sat-mon",
		"0 0 * * 7-1", // Sunday as 7 starts no week: 7-1 is as descending as 6-1
		"0 0 * * 7-3",
		"0 0 * * 7-6",
		"0 0 * * 1,7-2",
		"0 0 * * 7-5/2",
		"0 23-2 * * *", // hours do not wrap
		"50-10 * * * *",
		"0 0 20-10 * *",
		"0 0 * dec-jan *",
	} {
		_, err := Parse(expr, time.UTC)
		if err == nil || !strings.HasPrefix(err.Error(), "cron expression") {
			t.Errorf("Parse(%q) = %v, want an invalid-schedule error", expr, err)
		}
	}
}

// TestScheduleNeverFires: an expression with no slot in a whole Gregorian
// cycle (400 years) never fires and is refused, saying so; one with a
// slot, however rare, is accepted. Checked against the brute force on
// random day-restricting expressions.
func TestScheduleNeverFires(t *testing.T) {
	for _, expr := range []string{"0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 30 2 *,1", "0 0 31 2 */7", "0 0 30,31 feb *"} {
		_, err := Parse(expr, time.UTC)
		if err == nil || !strings.HasPrefix(err.Error(), "cron expression") || !strings.Contains(err.Error(), "never fires") {
			t.Errorf("Parse(%q) = %v, want a never-fires error", expr, err)
		}
	}
	for _, expr := range []string{"0 0 29 2 *", "0 0 29 2 */7", "0 0 30 2 1", "0 0 31 * *", "0 0 L 2 *"} {
		if _, err := Parse(expr, time.UTC); err != nil {
			t.Errorf("Parse(%q): %v", expr, err)
		}
	}
	rng := rand.New(rand.NewSource(12))
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	never, fires := 0, 0
	for i := 0; i < 300; i++ {
		dom := []string{"29", "30", "31", "29-31", "30,31", "*/29", "31,30", "28-30/2"}[rng.Intn(8)]
		month := []string{"2", "feb", "4,6", "2,4", "*/2", "2-6/2", "9,11", "*"}[rng.Intn(8)]
		dow := []string{"*", "*,1", "*/7", "*/3", "1", "sun-tue", "*,5-0"}[rng.Intn(7)]
		if rng.Intn(2) == 0 {
			dom = "*," + dom
		}
		expr := "0 0 " + dom + " " + month + " " + dow
		e, ok := parseCronie(expr)
		if !ok {
			continue
		}
		_, want := e.nextDay(start)
		_, err := Parse(expr, time.UTC)
		switch {
		case want && err != nil:
			t.Errorf("%q fires (brute force) but Parse: %v", expr, err)
		case !want && (err == nil || !strings.Contains(err.Error(), "never fires")):
			t.Errorf("%q never fires (brute force) but Parse: %v", expr, err)
		}
		if want {
			fires++
		} else {
			never++
		}
	}
	if never < 20 || fires < 20 {
		t.Fatalf("random cases: %d never fire, %d fire; want both kinds", never, fires)
	}
}

// TestSchedulePrevNextFar: Prev and Next find a slot however far it is
// (a valid schedule fires at least once in any 400 years).
func TestSchedulePrevNextFar(t *testing.T) {
	d := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	for _, c := range []struct {
		expr      string
		prev      bool
		ref, want string
	}{
		{"0 0 29 2 *", false, "2097-03-01T00:00:00Z", "2104-02-29T00:00:00Z"},
		{"0 0 29 2 *", true, "2104-02-28T00:00:00Z", "2096-02-29T00:00:00Z"},
		{"0 0 29 2 */7", false, "2090-01-01T00:00:00Z", "2128-02-29T00:00:00Z"},
		{"0 0 29 2 */7", true, "2128-02-28T00:00:00Z", "2088-02-29T00:00:00Z"},
		{"0 0 29 2 */7", true, "2031-01-01T00:00:00Z", "2004-02-29T00:00:00Z"},
		{"0 0 29 2 1", false, "2024-03-01T00:00:00Z", "2025-02-03T00:00:00Z"}, // dom OR dow, in February
	} {
		s := mustParse(t, c.expr, time.UTC)
		f := s.Next
		if c.prev {
			f = s.Prev
		}
		got, ok := f(d(c.ref))
		if !ok || !got.Equal(d(c.want)) {
			t.Errorf("%q prev=%v from %s: %v, %v; want %s", c.expr, c.prev, c.ref, got, ok, c.want)
		}
	}
	// In a zone too: Feb 29th at 02:30 in New York (a DST zone), 2096 -> 2104.
	ny := mustZone(t, "America/New_York")
	s := mustParse(t, "30 2 29 2 *", ny)
	if got, ok := s.Next(time.Date(2097, 1, 1, 0, 0, 0, 0, ny)); !ok || !got.Equal(time.Date(2104, 2, 29, 2, 30, 0, 0, ny)) {
		t.Errorf("New York Next = %v, %v", got, ok)
	}
	// Random sparse expressions: Next agrees with the brute force, at any distance.
	rng := rand.New(rand.NewSource(13))
	for i := 0; i < 60; i++ {
		dow := []string{"*", "*/7", "1", "*/2", "6-0"}[rng.Intn(5)]
		expr := fmt.Sprintf("0 0 %d %d %s", 28+rng.Intn(2), 1+rng.Intn(2), dow)
		e, ok := parseCronie(expr)
		if !ok {
			continue
		}
		ref := time.Date(2000+rng.Intn(300), time.Month(1+rng.Intn(12)), 1, 0, 0, 0, 0, time.UTC)
		want, ok := e.nextDay(ref.AddDate(0, 0, 1))
		if !ok {
			continue
		}
		got, ok := mustParse(t, expr, time.UTC).Next(ref)
		if !ok || !got.Equal(want) {
			t.Errorf("%q Next(%s) = %v, %v; brute force %s", expr, ref.Format(time.RFC3339), got, ok, want.Format(time.RFC3339))
		}
	}
}

// TestScheduleSevenStartsNoRange: a day-of-week range from 7 (Sunday) to a
// weekday is refused with the field error of any descending range, as
// "6-1" is; from 7 to Sunday it is Sunday alone.
func TestScheduleSevenStartsNoRange(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"0 0 * * 7-1", `cron expression "0 0 * * 7-1" has an invalid day-of-week field "7-1": day-of-week takes 0-7 or sun-sat (0 and 7 are Sunday; or L, #), as a value, a list (1,5), a range from low to high (1-5) or a step (*/15)`},
		{"0 0 * * 6-1", `cron expression "0 0 * * 6-1" has an invalid day-of-week field "6-1": day-of-week takes 0-7 or sun-sat (0 and 7 are Sunday; or L, #), as a value, a list (1,5), a range from low to high (1-5) or a step (*/15)`},
		{"0 0 * * mon,7-3", `cron expression "0 0 * * mon,7-3" has an invalid day-of-week field "mon,7-3": day-of-week takes 0-7 or sun-sat (0 and 7 are Sunday; or L, #), as a value, a list (1,5), a range from low to high (1-5) or a step (*/15)`},
	} {
		_, err := Parse(c.expr, time.UTC)
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.expr, err, c.want)
		}
	}
	for _, expr := range []string{"0 0 * * 7-7", "0 0 * * 7-0", "0 0 * * 0-1", "0 0 * * sun-mon", "0 0 * * 7"} {
		if _, err := Parse(expr, time.UTC); err != nil {
			t.Errorf("Parse(%q): %v", expr, err)
		}
	}
}

// TestSevenRangeRespelled: a day-of-week range from 7 is spelled from 0,
// the days gronx gave it; an expression without one has no respelling.
func TestSevenRangeRespelled(t *testing.T) {
	tests := map[string]struct{ expr, want string }{
		"7-1":          {"0 2 * * 7-1", "0 2 * * 0-1"},
		"with a step":  {"0 2 * * 7-5/2", "0 2 * * 0-5/2"},
		"in a list":    {"30 1 * * mon,7-3", "30 1 * * 1,0-3"},
		"none":         {"0 2 * * 0-1", ""},
		"seven to sun": {"0 2 * * 7-7", ""},
		"a macro":      {"@daily", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := SevenRangeRespelled(tc.expr)
			if got != tc.want || ok != (tc.want != "") {
				t.Fatalf("SevenRangeRespelled(%q) = %q, %v; want %q", tc.expr, got, ok, tc.want)
			}
			if ok {
				if _, err := Parse(got, time.UTC); err != nil {
					t.Errorf("the respelling does not parse: %v", err)
				}
			}
		})
	}
}
