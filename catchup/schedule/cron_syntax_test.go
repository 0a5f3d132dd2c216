package schedule

import (
	"math/rand"
	"strings"
	"testing"
	"time"
)

// TestCronSyntaxRefusesWhatCronRefuses: what Parse takes from gronx but
// cron does not (L, W, #, ?, a step after a single value) is refused,
// naming the field and the fix; what cron takes is not.
func TestCronSyntaxRefusesWhatCronRefuses(t *testing.T) {
	for _, c := range []struct {
		name, expr, want string
	}{
		{"last_day", "0 3 L * *", `cron expression "0 3 L * *" has "L" in its day-of-month field, which cron does not take: cron refuses this line and never fires it; use what cron takes (a value, a list 1,5, a range 1-5, a step */15 or 1-20/5; month and day names)`},
		{"nearest_weekday", "0 3 15W * *", `has "15W" in its day-of-month field`},
		{"last_weekday_of_month", "0 3 * * 5L", `has "5L" in its day-of-week field`},
		{"nth_weekday", "0 3 * * 1#2", `has "1#2" in its day-of-week field`},
		{"question_mark_dom", "0 3 ? * 1", `has "?" in its day-of-month field`},
		{"question_mark_dow", "0 3 1 * ?", `has "?" in its day-of-week field`},
		{"in_a_list", "0 3 1,L * *", `has "L" in its day-of-month field`},
		{"minute_value_step", "5/15 * * * *", `cron expression "5/15 * * * *" has "5/15" in its minute field, which cron does not take: a step follows * or a range; write 5-59/15`},
		{"hour_value_step", "0 2/6 * * *", `has "2/6" in its hour field, which cron does not take: a step follows * or a range; write 2-23/6`},
		{"month_name_step", "0 0 1 mar/3 *", `write mar-12/3`},
		{"dow_value_step", "0 0 * * 1/2", `write 1-7/2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Parse(c.expr, time.UTC); err != nil {
				t.Fatalf("Parse(%q): %v; want it accepted (gronx reads it)", c.expr, err)
			}
			err := CronSyntax(c.expr)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("CronSyntax(%q) = %v; want it to say %q", c.expr, err, c.want)
			}
		})
	}
}

// TestCronSyntaxTakesWhatCronieTakes: every expression the brute-force
// reading of cronie's parser accepts (fixed and random, names in any case,
// Sunday as 7, ranges ending on Sunday) passes CronSyntax, and so do the
// macros.
func TestCronSyntaxTakesWhatCronieTakes(t *testing.T) {
	exprs := append([]string{"@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually",
		"0 3 * JUL-dec MON-fri,7", "*/15 1-10/3 */2 * sun", "0 0 * * 0-7", "0 0 1-31/10 * *"}, cronieTestExprs...)
	rng := rand.New(rand.NewSource(13))
	for i := 0; i < 300; i++ {
		exprs = append(exprs, cronieRandomExpr(rng))
	}
	checked := 0
	for _, expr := range exprs {
		if _, ok := parseCronie(expr); !ok && !strings.HasPrefix(expr, "@") {
			continue // L: not cronie's
		}
		if err := CronSyntax(expr); err != nil {
			t.Errorf("CronSyntax(%q): %v; cronie takes it", expr, err)
		}
		checked++
	}
	if checked < 250 {
		t.Fatalf("only %d expressions checked", checked)
	}
}

// TestParseCrontabNamesWhatCronTakes: ParseCrontab refuses what cron
// refuses, L and friends too, and an invalid field's error names what cron
// takes, never gronx's L, W or #, which cron would refuse in their turn.
func TestParseCrontabNamesWhatCronTakes(t *testing.T) {
	for _, c := range []struct {
		name, expr, want string
	}{
		{"day_of_month_zero", "0 3 0 * *", `cron expression "0 3 0 * *" has an invalid day-of-month field "0": day-of-month takes 1-31, as a value`},
		{"day_of_week_eight", "0 3 * * 8", `day-of-week takes 0-7 or sun-sat (0 and 7 are Sunday), as a value`},
		{"last_day", "0 3 L * *", `has "L" in its day-of-month field, which cron does not take`},
		{"value_step", "5/15 * * * *", `write 5-59/15`},
		{"never_fires", "0 0 30 2 *", `never fires`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCrontab(c.expr, time.UTC)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "or L") {
				t.Fatalf("ParseCrontab(%q) = %v; want it to say %q, and no L", c.expr, err, c.want)
			}
		})
	}
	if _, err := ParseCrontab("*/15 1-10/3 */2 JUL-dec MON-fri,7", time.UTC); err != nil {
		t.Fatalf("ParseCrontab: %v; cron takes it", err)
	}
}
