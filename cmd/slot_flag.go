package cmd

import (
	"fmt"
	"time"
)

// slotValue is a flag naming a slot (run's --slot), and whether it was
// given: a given one is checked, even empty (an unset shell variable),
// never taken for no flag at all.
type slotValue struct {
	text string
	set  bool
}

func (v *slotValue) String() string     { return v.text }
func (v *slotValue) Type() string       { return "time" }
func (v *slotValue) Set(s string) error { v.text, v.set = s, true; return nil }

// parseSlot reads a slot named by name (a flag, an argument, a variable)
// as RFC 3339. A time at or before the zero time is refused: catchup takes
// the zero time for "no slot", so such a slot would run as another one
// (a scheduled fire of the latest slot, the task's default slot), and none
// of the task's slots comes before the year 1. run --slot, CATCHUP_REPLAY_SLOT
// and explain's SLOT read theirs with it.
func parseSlot(name, v string) (time.Time, error) {
	t, err := parseTime(v)
	if err != nil {
		return time.Time{}, timeError(name, v, err, "want RFC 3339, like 2026-01-02T03:00:00Z")
	}
	if !t.After(time.Time{}) {
		return time.Time{}, fmt.Errorf("%s %s is not a slot: catchup's slots come after %s "+
			"(catchup backfill --dry-run --only all lists a range's slots)", name, v, time.Time{}.Format(time.RFC3339))
	}
	return t, nil
}
