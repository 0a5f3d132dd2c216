package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestHelpFlagsFitEightyColumns: every command's --help lists its flags
// within 80 columns, each described, where cobra printed a flag's text on
// one line of up to 476 columns.
func TestHelpFlagsFitEightyColumns(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		inFlags := false
		for _, line := range strings.Split(c.UsageString(), "\n") {
			switch {
			case line == "Flags:" || line == "Global Flags:":
				inFlags = true
			case line == "":
				inFlags = false
			case inFlags && len([]rune(line)) > helpColumns:
				t.Errorf("%s --help: a flag's line of %d columns: %q", c.CommandPath(), len([]rune(line)), line)
			}
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if strings.TrimSpace(f.Usage) == "" {
				t.Errorf("%s --%s: no description in --help", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCommand())
}
