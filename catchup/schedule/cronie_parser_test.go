package schedule

import (
	"strconv"
	"strings"
	"time"
)

// cronieEntry is one expression as cronie's load_entry reads it.
type cronieEntry struct {
	minute, hour, dom, month, dow uint64
	domStar, dowStar              bool
}

var cronieMonths = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

var cronieDays = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// cronieNumber reads a number or (when names is set) a name, as
// get_number does: names[i] stands for low+i.
func cronieNumber(s string, low int, names []string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil && s != "" && s[0] != '+' && s[0] != '-' {
		return n, true
	}
	for i, n := range names {
		if strings.EqualFold(n, s) {
			return low + i, true
		}
	}
	return 0, false
}

// cronieField reads one field into a bitset; ok is false where cronie
// refuses the field.
func cronieField(f string, low, high int, names []string, isDow bool) (uint64, bool) {
	var bits uint64
	for _, part := range strings.Split(f, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n <= 0 || n > high {
				return 0, false
			}
			step = n
		}
		var a, b int
		switch {
		case rng == "*":
			a, b = low, high
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var ok1, ok2 bool
			a, ok1 = cronieNumber(x, low, names)
			b, ok2 = cronieNumber(y, low, names)
			if !ok1 || !ok2 {
				return 0, false
			}
			if isDow && b == 0 && a > 0 {
				b = 7 // a range ending on Sunday ends on 7 (cronie's get_range)
			}
			if a > b {
				return 0, false
			}
		default:
			if hasStep {
				return 0, false // the brute force reads no "N/S"
			}
			var ok bool
			if a, ok = cronieNumber(rng, low, names); !ok {
				return 0, false
			}
			b = a
		}
		if a < low || b > high {
			return 0, false
		}
		for i := a; i <= b; i += step {
			bits |= 1 << i
		}
	}
	return bits, true
}

func parseCronie(expr string) (cronieEntry, bool) {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return cronieEntry{}, false
	}
	var e cronieEntry
	var ok [5]bool
	e.minute, ok[0] = cronieField(f[0], 0, 59, nil, false)
	e.hour, ok[1] = cronieField(f[1], 0, 23, nil, false)
	e.dom, ok[2] = cronieField(f[2], 1, 31, nil, false)
	e.month, ok[3] = cronieField(f[3], 1, 12, cronieMonths, false)
	e.dow, ok[4] = cronieField(f[4], 0, 7, cronieDays, true)
	for _, o := range ok {
		if !o {
			return cronieEntry{}, false
		}
	}
	if e.dow&(1|1<<7) != 0 {
		e.dow |= 1 | 1<<7
	}
	e.domStar, e.dowStar = f[2][0] == '*', f[4][0] == '*'
	return e, true
}

// dayMatches is cron.c's test of the day fields.
func (e cronieEntry) dayMatches(d time.Time) bool {
	if e.month&(1<<int(d.Month())) == 0 {
		return false
	}
	dom, dow := e.dom&(1<<d.Day()) != 0, e.dow&(1<<int(d.Weekday())) != 0
	if e.domStar || e.dowStar {
		return dom && dow
	}
	return dom || dow
}

// slots lists the UTC slots in [from, to) day by day.
func (e cronieEntry) slots(from, to time.Time) []time.Time {
	var out []time.Time
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		if !e.dayMatches(d) {
			continue
		}
		for h := 0; h < 24; h++ {
			for m := 0; m < 60 && e.hour&(1<<h) != 0; m++ {
				if e.minute&(1<<m) != 0 {
					out = append(out, d.Add(time.Duration(h)*time.Hour+time.Duration(m)*time.Minute))
				}
			}
		}
	}
	return out
}

// nextDay is the first matching day at or after d within 401 years.
func (e cronieEntry) nextDay(d time.Time) (time.Time, bool) {
	end := d.AddDate(401, 0, 0)
	for ; d.Before(end); d = d.AddDate(0, 0, 1) {
		if e.dayMatches(d) {
			return d, true
		}
	}
	return time.Time{}, false
}
