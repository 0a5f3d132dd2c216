package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// countedValue is a flag's value that counts how often it was given.
type countedValue struct {
	pflag.Value
	n *int
}

func (v countedValue) Set(s string) error {
	*v.n++
	return v.Value.Set(s)
}

// countSets makes flag name of f count how often it is given, and
// returns the count: an alert flag given twice is refused
// (notifyGivenTwice), where a string flag kept its last value and the
// first alert was dropped without a word.
func countSets(f *pflag.FlagSet, name string) *int {
	fl := f.Lookup(name)
	n := new(int)
	fl.Value = countedValue{fl.Value, n}
	return n
}

// notifyGivenTwice refuses command's --notify-cmd given more than once.
func notifyGivenTwice(command string) error {
	return fmt.Errorf("--notify-cmd given more than once: catchup %s runs one alert command; fix: keep one --notify-cmd (two alerts: --notify-cmd 'a; b')", command)
}

// givenTimes is how often flag name of c was given, when countSets counts
// it; else 1 when it was given, 0 when not.
func givenTimes(c *cobra.Command, name string) int {
	fl := c.Flags().Lookup(name)
	if cv, ok := fl.Value.(countedValue); ok {
		return *cv.n
	}
	if fl.Changed {
		return 1
	}
	return 0
}
