package cmd

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/catchup/catchup/catchup/crontab"
)

// TestCrontabParserKnowsRunFlags: every flag of `catchup run` is known to
// the crontab parser, with the same need for a value: a crontab line that
// uses one (--ping-file) must not be refused by scan as an unknown flag.
func TestCrontabParserKnowsRunFlags(t *testing.T) {
	c := newRunCmd(&globals{})
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		takesValue, known := crontab.RunFlag(f.Name)
		if !known {
			t.Errorf("run's --%s is unknown to the crontab parser (catchup/crontab/flags.go runFlags)", f.Name)
			return
		}
		// A flag with an optional value (--wait) reads its value itself.
		wantValue := f.Value.Type() != "bool" && f.NoOptDefVal == ""
		if takesValue != wantValue {
			t.Errorf("run's --%s: the crontab parser says takes a value = %v, want %v", f.Name, takesValue, wantValue)
		}
	})
}
