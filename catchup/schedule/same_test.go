package schedule

import (
	"testing"
	"time"
)

// TestSameExpr: two expressions are one schedule when they fire at the
// same wall times with the same DST handling, however they are written;
// the day rule is cronie's (a day field starting with '*' leaves the other
// alone), and days a month does not have do not count.
func TestSameExpr(t *testing.T) {
	cases := map[string]struct {
		a, b string
		want bool
	}{
		"same text":                      {"30 6 * * 1-5", "30 6 * * 1-5", true},
		"spaces":                         {" 30  6 * *\t1-5 ", "30 6 * * 1-5", true},
		"day names":                      {"30 6 * * MON-FRI", "30 6 * * 1-5", true},
		"lower-case names":               {"0 0 1 jan *", "0 0 1 1 *", true},
		"daily macro":                    {"@daily", "0 0 * * *", true},
		"midnight and daily":             {"@midnight", "@daily", true},
		"weekly macro":                   {"@weekly", "0 0 * * 7", true},
		"hourly macro":                   {"@hourly", "0 * * * *", true},
		"sunday as 7":                    {"0 0 * * 0", "0 0 * * 7", true},
		"range ending on sunday":         {"0 0 * * 5-0", "0 0 * * fri,sat,sun", true},
		"list order and repeats":         {"5,1,3 * * * *", "1,3,5,5 * * * *", true},
		"step spelled out":               {"0 */6 * * *", "0 */6 * * *", true},
		"question mark":                  {"0 0 ? * *", "0 0 * * *", true},
		"every weekday with star dom":    {"0 0 * * 0-6", "0 0 * * *", true},
		"step-one weekday with star dom": {"0 0 1 * */1", "0 0 1 * *", true},
		"star-step dow keeps dom alone":  {"0 0 13 * */2", "0 0 13 * 0,2,4,6", false},
		"both restricted is either":      {"0 0 1 * 0-6", "0 0 * * *", true},
		"dom and dow or":                 {"0 0 13 * 5", "0 0 13 * *", false},
		"day no month has":               {"0 0 1,31 4 *", "0 0 1 4 *", true},
		"last day of april":              {"0 0 L 4 *", "0 0 30 4 *", true},
		"last day of february":           {"0 0 L 2 *", "0 0 28,29 2 *", false},
		"other minute":                   {"30 6 * * 1-5", "31 6 * * 1-5", false},
		"other hour":                     {"30 6 * * 1-5", "30 7 * * 1-5", false},
		"other days":                     {"30 6 * * 1-5", "30 6 * * 1-6", false},
		"other month":                    {"0 0 1 1 *", "0 0 1 2 *", false},
		"wildcard minute is not a list":  {"* 1 * * *", "0-59 1 * * *", false}, // a fall back runs * twice, 0-59 once
		"wildcard hour is not a list":    {"0 * * * *", "0 0-23 * * *", false},
		"both wildcard either way":       {"* * * * *", "0-59 * * * *", true}, // a '*' hour runs both either way
		"unparsable":                     {"x", "x", true},
		"unparsable and valid":           {"61 * * * *", "0 * * * *", false},
		"empty":                          {"", "0 * * * *", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := SameExpr(c.a, c.b); got != c.want {
				t.Errorf("SameExpr(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
			}
			if got := SameExpr(c.b, c.a); got != c.want {
				t.Errorf("SameExpr(%q, %q) = %v, want %v", c.b, c.a, got, c.want)
			}
		})
	}
}

// TestSameAsAgreesWithSlots: schedules SameAs calls the same have the same
// slots through a DST year in a zone with both changes, and ExprName keeps
// the registered text only for those.
func TestSameAsAgreesWithSlots(t *testing.T) {
	loc := mustZone(t, "America/New_York")
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	pairs := [][2]string{
		{"30 1 * * MON-FRI", "30 1 * * 1-5"}, {"@daily", "0 0 * * *"}, {"0 0 1 * 0-6", "0 0 * * *"},
		{"* 1 * * *", "0-59 1 * * *"}, {"30 2 * * *", "30 2 * * 0-6"},
	}
	for _, p := range pairs {
		a, b := mustParse(t, p[0], loc), mustParse(t, p[1], loc)
		same := a.SameAs(b)
		equal := len(collect(a, from, to)) == len(collect(b, from, to))
		if equal {
			ca, cb := collect(a, from, to), collect(b, from, to)
			for i := range ca {
				if !ca[i].Equal(cb[i]) {
					equal = false
				}
			}
		}
		if same != equal {
			t.Errorf("%q SameAs %q = %v, but their slots equal = %v", p[0], p[1], same, equal)
		}
		want := p[1]
		if same {
			want = p[0]
		}
		if got := ExprName(p[0], p[1]); got != want {
			t.Errorf("ExprName(%q, %q) = %q, want %q", p[0], p[1], got, want)
		}
	}
	var none *Schedule
	if none.SameAs(mustParse(t, "* * * * *", loc)) || !none.SameAs(nil) {
		t.Error("a nil schedule is the same only as nil")
	}
}
