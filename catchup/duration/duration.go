// Package duration reads the durations catchup's flags take:
// time.ParseDuration's, plus a leading whole number of days ("7d",
// "1d12h"), within what a time.Duration holds.
package duration

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/redact"
)

// Max is the longest duration Parse takes: 106751 days, about 292 years,
// the whole days a time.Duration can hold.
const Max = maxDays * 24 * time.Hour

const maxDays = 106751

// ErrTooLong is returned by Parse for a duration past Max.
var ErrTooLong = errors.New("too long (at most 106751d)")

// ErrInvalid is wrapped by Parse's error for what is no duration.
var ErrInvalid = errors.New("use e.g. 90s, 5m, 12h, 7d, 1d12h")

// invalid is Parse's error for s, which is no duration.
func invalid(s string) error { return invalidError{s} }

// invalidError quotes the word it refused masked (redact.Value: a secret
// that landed on a flag is never echoed), only when its text is asked
// for: a word tried as a duration that is none (a bare --wait's next one)
// costs no masking.
type invalidError struct{ s string }

func (e invalidError) Error() string {
	return fmt.Sprintf("invalid duration %q: %v", redact.Value(e.s), ErrInvalid)
}

func (e invalidError) Unwrap() error { return ErrInvalid }

// Parse is time.ParseDuration plus a leading whole number of days
// ("7d", "1d12h"), the unit people use for catch-up windows and retention.
// A duration past Max is ErrTooLong, never wrapped around to a negative
// one.
func Parse(s string) (time.Duration, error) {
	days, rest, found := strings.Cut(s, "d")
	if !found {
		d, err := time.ParseDuration(s)
		if err != nil && overflows(s) || err == nil && d > Max {
			return 0, tooLong(s)
		}
		if err != nil { // not Go's wording ("time: missing unit in duration")
			return 0, invalid(s)
		}
		return d, nil
	}
	n, err := strconv.ParseUint(days, 10, 64)
	if errors.Is(err, strconv.ErrRange) || err == nil && n > maxDays {
		return 0, tooLong(s)
	}
	if err != nil || days == "" {
		return 0, invalid(s)
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest == "" {
		return d, nil
	}
	r, err := time.ParseDuration(rest)
	if err != nil && overflows(rest) || err == nil && r > Max-d {
		return 0, tooLong(s)
	}
	if err != nil || r < 0 {
		return 0, invalid(s)
	}
	return d + r, nil
}

// overflows reports whether s, which time.ParseDuration refused, is a
// well-formed positive duration too long for a time.Duration ("9999999999h").
func overflows(s string) bool {
	units := map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6,
		"s": 1e9, "m": 60e9, "h": 3600e9}
	s = strings.TrimPrefix(s, "+")
	total := 0.0
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return false
		}
		v, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return false
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return '0' <= r && r <= '9' || r == '.' })
		if j < 0 {
			j = len(s)
		}
		unit, ok := units[s[:j]]
		if !ok {
			return false
		}
		total += v * unit
		s = s[j:]
	}
	return total >= math.MaxInt64
}

// tooLong is Parse's error for s past Max.
func tooLong(s string) error { return fmt.Errorf("duration %q: %w", s, ErrTooLong) }
