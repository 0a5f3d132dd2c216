package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/catchup/catchup/catchup/crontab"
)

// Every flag of every command takes one value, but for the repeatable
// ones (a pflag.SliceValue: scan's and backfill's --task, --crontab, their
// help saying "repeatable"): given twice, it is a usage error naming it.
// pflag keeps a flag's last value, and `--timeout 1h --timeout 1s`,
// `prune --older-than 30d --older-than 1d` or `--db a run --db b` took
// the last without a word.

// onceValue is a flag's value that refuses a second Set.
type onceValue struct {
	pflag.Value
	given bool
}

// errSetTwice is onceValue's refusal; flagGivenTwice names the flag.
var errSetTwice = errors.New("given more than once")

func (v *onceValue) Set(s string) error {
	if v.given {
		return errSetTwice
	}
	v.given = true
	return v.Value.Set(s)
}

// flagsOnce makes every flag of c and of its subcommands refuse to be
// given twice, but for the repeatable ones. The help flag, which cobra
// adds later, is left as it is.
func flagsOnce(c *cobra.Command) {
	once := func(fl *pflag.Flag) {
		switch fl.Value.(type) {
		case *onceValue, pflag.SliceValue:
		default:
			fl.Value = &onceValue{Value: fl.Value}
		}
	}
	c.Flags().VisitAll(once)
	c.PersistentFlags().VisitAll(once)
	for _, sub := range c.Commands() {
		flagsOnce(sub)
	}
}

// flagGivenTwice is err, pflag's of a flag given twice (onceValue), as
// one line naming the flag and never its value (a ping URL, a --db's
// password): for run, as scan and catchup daemon refuse a crontab line so
// written. Any other error is err.
func flagGivenTwice(c *cobra.Command, err error) error {
	var bad *pflag.InvalidValueError
	if !errors.As(err, &bad) || !errors.Is(err, errSetTwice) {
		return err
	}
	name := bad.GetFlag().Name
	switch {
	case c.Name() == "run":
		return crontab.GivenTwice(name)
	case name == "notify-cmd":
		return fmt.Errorf("--notify-cmd given more than once: %s runs one alert command; fix: keep one --notify-cmd (two alerts: --notify-cmd 'a; b')", c.CommandPath())
	}
	return fmt.Errorf("--%s given more than once: %s takes one --%s; fix: keep one", name, c.CommandPath(), name)
}
