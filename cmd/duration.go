package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/redact"

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

func (d *durationValue) String() string { return catchup.FormatDuration(time.Duration(*d)) }

// parseDuration is time.ParseDuration plus a leading whole number of days.
func parseDuration(s string) (time.Duration, error) { return catchup.ParseDuration(s) }

// tooLong rewrites pflag's error for a duration flag's value past
// catchup.MaxDuration as "--NAME VALUE: too long (at most 106751d)", and
// for a number flag's value that is no number or out of range as
// "--NAME VALUE: not a whole number" or "...: out of range" (not Go's
// strconv message); another invalid value's error keeps its text. VALUE is
// quoted masked (redact.Value): a secret that landed on a flag by mistake
// is never echoed, a plain bad value is. Any other error is returned as it
// is.
func tooLong(err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) {
		return err
	}
	var num *strconv.NumError
	name, v := bad.GetFlag().Name, shownValue(bad.GetValue())
	empty := bad.GetValue() == "" // "--max-age $WINDOW" with WINDOW unset: no typo to show
	switch {
	case empty && errors.Is(err, catchup.ErrDurationInvalid):
		return emptyValue{fmt.Sprintf("--%s is empty: give a duration, such as 90s, 5m, 12h or 7d, or drop --%s", name, name), catchup.ErrDurationInvalid}
	case empty && errors.As(err, &num):
		return emptyValue{fmt.Sprintf("--%s is empty: give a whole number, such as 3, or drop --%s", name, name), num}
	case errors.Is(err, catchup.ErrDurationTooLong):
		return fmt.Errorf("--%s %s: %w", name, v, catchup.ErrDurationTooLong)
	case errors.Is(err, catchup.ErrDurationInvalid):
		return fmt.Errorf("--%s %s: not a duration: %w", name, v, catchup.ErrDurationInvalid)
	case errors.As(err, &num) && errors.Is(num.Err, strconv.ErrRange):
		return fmt.Errorf("--%s %s: out of range", name, v)
	case errors.As(err, &num):
		return fmt.Errorf("--%s %s: not a whole number", name, v)
	}
	msg := redact.ValueIn(err.Error(), bad.GetValue())
	if shown := redact.Value(bad.GetValue()); quotedValue(bad.GetValue()) != strconv.Quote(shown) {
		msg = strings.ReplaceAll(msg, strconv.Quote(shown), quotedValue(bad.GetValue())) // cut (shownValue)
	}
	return maskedValue{err, msg}
}

// emptyValue is the error of a duration or number flag given empty: its
// text says so, and it wraps what the parser said.
type emptyValue struct {
	msg string
	err error
}

func (e emptyValue) Error() string { return e.msg }
func (e emptyValue) Unwrap() error { return e.err }

// maskedValue is an error whose text quotes a flag's value masked
// (redact.ValueIn): a secret that landed on a flag is never echoed (X11).
type maskedValue struct {
	err error
	msg string
}

func (e maskedValue) Error() string { return e.msg }
func (e maskedValue) Unwrap() error { return e.err }

// durationWant is what a crontab line's duration flag wants, given the
// error of its value: a shorter one when it is too long, else want.
func durationWant(err error, want string) string {
	if errors.Is(err, catchup.ErrDurationTooLong) {
		return catchup.ErrDurationTooLong.Error()
	}
	return want
}

// durationVar adds a duration flag that accepts days.
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	f.Var(newDuration(p, def), name, usage)
	if def == 0 {
		// No "(default 0s)": a zero default means none (its usage says
		// what), and --max-age 0s, say, is refused.
		f.Lookup(name).DefValue = "0"
	}
}

// waitNoLimit is the value of a bare --wait: wait as long as it takes.
const waitNoLimit = "unlimited"

// waitValue is run's --wait: bare (wait without a limit), --wait=DUR, or
// --wait DUR as flock -w takes it. pflag cannot read an optional value
// from the next word, so takeLimit takes it from the arguments.
type waitValue struct {
	set   bool
	limit time.Duration
	bare  bool // given without =DUR: the next word may be the limit
	err   error
}

func (w *waitValue) Set(s string) error {
	w.set, w.bare, w.limit = true, s == waitNoLimit, 0
	if w.bare {
		return nil
	}
	if b, err := strconv.ParseBool(s); err == nil { // --wait=true, as when it was a switch
		w.set = b
		return nil
	}
	return w.setLimit(s)
}

func (w *waitValue) setLimit(s string) error {
	d, err := parseDuration(s)
	if errors.Is(err, catchup.ErrDurationTooLong) {
		return fmt.Errorf("--wait %s: %w", redact.Value(s), catchup.ErrDurationTooLong)
	}
	if err != nil {
		return err
	}
	if d <= 0 {
		return fmt.Errorf("--wait %s: the limit must be positive (a bare --wait waits without one)", redact.Value(s))
	}
	w.limit, w.bare = d, false
	return nil
}

// negativeLimit reads a flag error of "--wait -1s": pflag takes the word
// after a bare --wait for shorthand flags, so a negative limit is refused as
// such, not as an unknown flag. Any other error is returned as it is.
func (w *waitValue) negativeLimit(err error) error {
	var unknown *pflag.NotExistError
	if !w.bare || !errors.As(err, &unknown) || unknown.GetSpecifiedShortnames() == "" {
		return err
	}
	word := "-" + unknown.GetSpecifiedShortnames()
	if _, perr := parseDuration(word); perr != nil {
		return err
	}
	return w.setLimit(word)
}

func (w *waitValue) Type() string { return "duration" }

func (w *waitValue) String() string {
	if w.limit > 0 {
		return catchup.FormatDuration(w.limit)
	}
	return ""
}

// takeLimit reads "--wait DUR": when --wait came without a value and the
// first argument (not after a --) reads as a duration, it is the limit. It
// returns the arguments after it, still to be parsed as flags, and whether
// it took one.
func (w *waitValue) takeLimit(args []string, atDash int) ([]string, bool) {
	if !w.bare || len(args) == 0 || atDash == 0 {
		return args, false
	}
	if args[0] == "" { // --wait "$LIMIT", LIMIT unset: no command is empty
		w.err = errors.New("--wait is empty: give a duration, such as 90s, 5m, 12h or 7d, or drop it (a bare --wait waits without a limit)")
		return args[1:], true
	}
	if _, err := parseDuration(args[0]); err != nil && !errors.Is(err, catchup.ErrDurationTooLong) {
		return args, false
	}
	w.err = w.setLimit(args[0])
	return args[1:], true
}

// givenDurationVar is durationVar for a flag whose 0 given must be told
// from no flag (run's --max-age): given is set when it is given.
func givenDurationVar(f *pflag.FlagSet, p *time.Duration, given *bool, name string, usage string) {
	f.Var(givenDuration{newDuration(p, 0), given}, name, usage)
	f.Lookup(name).DefValue = "0"
}

type givenDuration struct {
	*durationValue
	given *bool
}

func (v givenDuration) Set(s string) error {
	if err := v.durationValue.Set(s); err != nil {
		return err
	}
	*v.given = true
	return nil
}
