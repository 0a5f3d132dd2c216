package catchup

import (
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// Upcoming is one future slot of a schedule, with what DST did to it.
type Upcoming struct {
	Slot time.Time // the instant, UTC
	Note string    // "" or what the DST rule did: skipped wall times run at the change (one slot with its own time), a repeated hour run twice
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
// stands for wall times a spring-forward skipped (several of them, or
// with the wall time at the change, are one slot where cronie runs each),
// or it is the second showing of a wall time in a fall-back hour. A change
// that is not DST's (the zone's daylight flag the same on both sides) is
// named a clock change.
func dstNote(s *schedule.Schedule, slot time.Time) string {
	loc := s.Location()
	local := slot.In(loc)
	start, _ := local.ZoneBounds()
	if start.IsZero() {
		return ""
	}
	_, offNow := local.Zone()
	previous := start.Add(-time.Second).In(loc)
	_, offBefore := previous.Zone()
	shift := time.Duration(offNow-offBefore) * time.Second
	change := "DST"
	if previous.IsDST() == local.IsDST() {
		change = "clock change" // a zone moving its standard time: Samoa across the date line, 2011
	}
	switch {
	case shift > 0 && slot.Equal(start):
		skipped := s.Skipped(slot)
		before, layout := start.In(time.FixedZone("", offBefore)), "15:04"
		if before.YearDay() != local.YearDay() || before.Year() != local.Year() {
			layout = "2006-01-02 15:04" // a gap across midnight, or a whole day (Samoa, 2011-12-30)
		}
		gap := fmt.Sprintf("%s: %s-%s does not exist", change, before.Format(layout), local.Format(layout))
		atChange := s.Matches(slot)
		switch {
		case len(skipped) == 0:
			return ""
		case len(skipped) == 1 && !atChange:
			return gap + "; the skipped time runs at the change"
		}
		merged := wallList(skipped, layout)
		if atChange {
			merged += " and " + local.Format(layout)
		}
		return gap + "; " + merged + " are one slot (cronie runs each)"
	case shift < 0 && slot.Sub(start) < -shift:
		return fmt.Sprintf("%s: %s comes twice; a wildcard minute or hour runs at both", change, local.Format("15:04"))
	}
	return ""
}

// wallList names skipped wall times in layout (dated when the gap crosses
// midnight): "02:00, 02:30 (skipped)", or for many "02:00 ... 02:59 (60
// times, skipped)".
func wallList(walls []time.Time, layout string) string {
	if len(walls) > 4 {
		return fmt.Sprintf("%s ... %s (%d times, skipped)", walls[0].Format(layout), walls[len(walls)-1].Format(layout), len(walls))
	}
	names := make([]string, len(walls))
	for i, w := range walls {
		names[i] = w.Format(layout)
	}
	return strings.Join(names, ", ") + " (skipped)"
}
