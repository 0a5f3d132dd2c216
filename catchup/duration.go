package catchup

import (
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/duration"
)

// MaxDuration is the longest duration ParseDuration takes (106751d).
const MaxDuration = duration.Max

// ErrDurationTooLong is returned by ParseDuration for a duration past
// MaxDuration.
var ErrDurationTooLong = duration.ErrTooLong

// ErrDurationInvalid is wrapped by ParseDuration's error for what is no
// duration: its words are the fix.
var ErrDurationInvalid = duration.ErrInvalid

// ParseDuration is time.ParseDuration plus a leading whole number of days
// ("7d", "1d12h"), the unit people use for catch-up windows and retention:
// see package duration.
func ParseDuration(s string) (time.Duration, error) { return duration.Parse(s) }

// FormatDuration prints a duration as people write it: whole days as "7d",
// the rest as time.Duration does ("36h0m0s" as "36h"). Every duration
// shown to people is written so (a catch-up window, a timeout, a lease, a
// retry's delay), as --max-age takes it.
func FormatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
