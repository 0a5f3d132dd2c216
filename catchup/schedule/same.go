package schedule

import (
	"strings"
	"time"
)

// What makes two expressions one schedule: the same matching wall times,
// with the same DST handling, however they are written ("30 6 * * MON-FRI"
// and "30 6 * * 1-5", "@daily" and "0 0 * * *"). A registered schedule is
// compared with a new one by meaning, not by text: another spelling is no
// schedule change (which would reset the task's watermark).

// SameAs reports whether s and o fire at the same wall times and treat a
// DST change alike, the zone aside (compare zones with SameZone). The
// matching wall times are the matching dates times the matching hours
// times the matching minutes; the dates are compared month by month over
// one whole calendar cycle, with cronie's day rule and L, W and # as
// evaluated, so that a day no month has ("0 0 1,31 4 *") or a weekday list
// a '*' day-of-month leaves whole ("0 0 * * 0-6") changes nothing. A
// wildcard minute or hour and its list written out ("*" and "0-59") differ:
// at a fall back cron runs the wildcard twice and the list once. A nil
// schedule is the same only as nil.
func (s *Schedule) SameAs(o *Schedule) bool {
	if s == nil || o == nil {
		return s == o
	}
	if s.minute != o.minute || s.hour != o.hour || s.fixed != o.fixed {
		return false
	}
	if s.segs[3] == o.segs[3] && s.segs[4] == o.segs[4] && s.segs[5] == o.segs[5] {
		return true // the same day and month fields, as gronx normalized them
	}
	var cs, co cursor
	for y := int64(2000); y < 2000+cycleYears; y++ {
		for m := int64(1); m <= 12; m++ {
			if s.monthDays(&cs, y, m) != o.monthDays(&co, y, m) {
				return false
			}
		}
	}
	return true
}

// monthDays returns the days (bit d for day d) of month m of year y that
// match, the month field included.
func (s *Schedule) monthDays(c *cursor, y, m int64) uint32 {
	if s.month&(1<<m) == 0 {
		return 0
	}
	if !c.valid || c.y != y || c.m != m {
		c.y, c.m, c.mask, c.valid = y, m, s.monthMask(y, m), true
	}
	return c.mask
}

// SameExpr reports whether expressions a and b are one schedule (SameAs):
// the same text (spaces aside), or two texts that parse to the same
// schedule. An expression that does not parse is the same only as its own
// text.
func SameExpr(a, b string) bool {
	a, b = strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " ")
	if a == b {
		return true
	}
	sa, err := Parse(a, time.UTC)
	if err != nil {
		return false
	}
	sb, err := Parse(b, time.UTC)
	return err == nil && sa.SameAs(sb)
}

// ExprName is the expression to register for expr when registered is the
// task's expression so far: registered when both are one schedule (another
// spelling is no schedule change), else expr. As ZoneName does for zones.
func ExprName(registered, expr string) string {
	if registered != "" && SameExpr(registered, expr) {
		return registered
	}
	return expr
}
