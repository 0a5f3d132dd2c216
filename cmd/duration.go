package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// durationValue is a time.Duration flag that also takes days ("7d",
// "1d12h"), the unit people use for --max-age and retention, which
// time.ParseDuration does not know.
type durationValue time.Duration

func newDuration(p *time.Duration, def time.Duration) *durationValue {
	*p = def
	return (*durationValue)(p)
}

func (d *durationValue) Set(s string) error {
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) Type() string { return "duration" }

func (d *durationValue) String() string { return formatDuration(time.Duration(*d)) }

// parseDuration is time.ParseDuration plus a leading whole number of days.
func parseDuration(s string) (time.Duration, error) {
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

// formatDuration prints whole days as "7d", the rest as time.Duration does.
func formatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= day && d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}

// durationVar adds a duration flag that accepts days.
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	f.Var(newDuration(p, def), name, usage)
}
