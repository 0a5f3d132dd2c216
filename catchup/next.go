package catchup

import (
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// Upcoming is one future slot of a schedule, with what DST did to it.
type Upcoming struct {
	Slot time.Time // the instant, UTC
	Note string    // "" or what the DST rule did: a skipped wall time run at the change, a repeated hour run twice
}

// NextSlots returns the first n slots of s strictly after now, each with a
// note when a DST change moved or repeated it (cronie's rule, as scan and
// run apply it).
func NextSlots(s *schedule.Schedule, now time.Time, n int) []Upcoming {
	var out []Upcoming
	s.Slots(now, now.AddDate(401, 0, 0), func(slot time.Time) bool {
		out = append(out, Upcoming{Slot: slot, Note: dstNote(s, slot)})
		return len(out) < n
	})
	return out
}

// dstNote says why slot is not a plain wall time of the expression: it
// stands for wall times a spring-forward skipped, or it is the second
// showing of a wall time in a fall-back hour.
func dstNote(s *schedule.Schedule, slot time.Time) string {
	loc := s.Location()
	local := slot.In(loc)
	start, _ := local.ZoneBounds()
	if start.IsZero() {
		return ""
	}
	_, offNow := local.Zone()
	_, offBefore := start.Add(-time.Second).In(loc).Zone()
	shift := time.Duration(offNow-offBefore) * time.Second
	switch {
	case shift > 0 && slot.Equal(start) && !s.Matches(slot):
		return fmt.Sprintf("DST: %s-%s does not exist; the skipped time runs at the change",
			start.In(time.FixedZone("", offBefore)).Format("15:04"), local.Format("15:04"))
	case shift < 0 && slot.Sub(start) < -shift:
		return fmt.Sprintf("DST: %s comes twice; a wildcard minute or hour runs at both", local.Format("15:04"))
	}
	return ""
}
