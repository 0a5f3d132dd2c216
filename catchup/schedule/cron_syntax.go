package schedule

import (
	"fmt"
	"strings"

	"github.com/catchup/catchup/catchup/taskname"
)

// fieldHigh is each field's highest value as cronie's parser takes it
// (day-of-week 7 is Sunday).
var fieldHigh = [5]int{59, 23, 31, 12, 7}

var (
	monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	dayNames   = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
)

// CronSyntax refuses what cron itself (cronie, Debian's cron) does not
// take in the time fields of a crontab line, though Parse, which reads
// --cron as gronx does, accepts it: gronx's L, W, # and ?, and a step
// after a single value (5/15: gronx reads 5-59/15, cronie refuses the
// line). Cron never fires such a line, so a reader of a crontab cron
// runs must not give it slots. It checks the forms only: call it on an
// expression Parse accepts. A macro (@daily) is Parse's to check.
func CronSyntax(expr string) error {
	trimmed := strings.TrimSpace(expr)
	fields := strings.Fields(trimmed)
	if strings.HasPrefix(trimmed, "@") || len(fields) != 5 {
		return nil
	}
	for i, field := range fields {
		for _, item := range strings.Split(field, ",") {
			base, step, hasStep := strings.Cut(item, "/")
			lo, hi, isRange := strings.Cut(base, "-")
			if !(base == "*" || cronAtom(lo, i) && (!isRange || cronAtom(hi, i))) {
				return fmt.Errorf("cron expression %s has %s in its %s field, which cron does not take: cron refuses this line and never fires it; "+
					"use what cron takes (a value, a list 1,5, a range 1-5, a step */15 or 1-20/5; month and day names)",
					quoted(trimmed), taskname.QuotedUpTo(shownField(trimmed, item), shownMax), fieldNames[i])
			}
			if hasStep && base != "*" && !isRange {
				return fmt.Errorf("cron expression %s has %s in its %s field, which cron does not take: a step follows * or a range; write %s-%d/%s",
					quoted(trimmed), taskname.QuotedUpTo(shownField(trimmed, item), shownMax), fieldNames[i],
					shownField(trimmed, base), fieldHigh[i], shownField(trimmed, step))
			}
		}
	}
	return nil
}

// cronAtom reports whether a is a value cron takes in field i: digits,
// or a month or day name (any case) in the month or day-of-week field.
func cronAtom(a string, i int) bool {
	if a != "" && strings.Trim(a, "0123456789") == "" {
		return true
	}
	var names []string
	switch i {
	case 3:
		names = monthNames
	case 4:
		names = dayNames
	}
	for _, n := range names {
		if strings.EqualFold(a, n) {
			return true
		}
	}
	return false
}
