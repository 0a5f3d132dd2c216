package cmd

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// clock returns the command's clock: the real one, or CATCHUP_NOW moving
// forward from the given instant at the real rate (so durations stay real),
// from the command's first reading of it: the time it took to get there
// (opening a ledger on a loaded server: a second, at times) is not counted,
// so a command that reads its clock once reads the instant given. pinned:
// CATCHUP_NOW gave it, so it is no host's clock (catchup.Machine.ClockPinned).
// CATCHUP_CLOCK_OFFSET (a test hook) is the real clock moved by a
// duration, a host's clock off by that much: not pinned.
func clock(getenv func(string) string) (now func() time.Time, pinned bool, err error) {
	v, off := getenv("CATCHUP_NOW"), getenv("CATCHUP_CLOCK_OFFSET")
	switch {
	case v != "" && off != "":
		return nil, false, errors.New("CATCHUP_NOW and CATCHUP_CLOCK_OFFSET exclude each other: unset one")
	case off != "":
		d, err := time.ParseDuration(off)
		if err != nil {
			return nil, false, fmt.Errorf("CATCHUP_CLOCK_OFFSET=%s is not a duration (like 90s or -2m)", quotedValue(off))
		}
		return func() time.Time { return time.Now().Add(d) }, false, nil
	case v == "":
		return time.Now, false, nil
	}
	base, err := parseTime(v)
	if e, ok := err.(errOffset); ok {
		return nil, false, fmt.Errorf("CATCHUP_NOW=%s: %v", quotedValue(v), e)
	}
	if err != nil {
		return nil, false, fmt.Errorf("CATCHUP_NOW=%s is not an RFC 3339 time (like 2026-01-02T03:04:05Z)", quotedValue(v))
	}
	var once sync.Once
	var start time.Time
	return func() time.Time {
		once.Do(func() { start = time.Now() })
		return base.Add(time.Since(start))
	}, true, nil
}
