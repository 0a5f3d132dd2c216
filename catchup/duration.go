package catchup

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration is time.ParseDuration plus a leading whole number of days
// ("7d", "1d12h"), the unit people use for catch-up windows and retention.
func ParseDuration(s string) (time.Duration, error) {
	days, rest, found := strings.Cut(s, "d")
	if !found {
		return time.ParseDuration(s)
	}
	n, err := strconv.ParseUint(days, 10, 16)
	if err != nil || days == "" {
		return 0, fmt.Errorf("invalid duration %q: use e.g. 90s, 5m, 12h, 7d, 1d12h", s)
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest == "" {
		return d, nil
	}
	r, err := time.ParseDuration(rest)
	if err != nil || r < 0 {
		return 0, fmt.Errorf("invalid duration %q: use e.g. 90s, 5m, 12h, 7d, 1d12h", s)
	}
	return d + r, nil
}

// formatWindow prints a duration as people write it: whole days as "7d",
// the rest as time.Duration does ("36h0m0s" as "36h").
func formatWindow(d time.Duration) string {
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
