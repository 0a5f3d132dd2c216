package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// execStartPre finds an ExecStartPre= whose command has no leading "-":
// in cron's unit, that makes any scan exit 1 or 2 stop cron from starting,
// and with it every cron job on the host.
var execStartPre = regexp.MustCompile(`ExecStartPre=[^-]`)

// TestHelpExecStartPreIgnoresFailure: no command's help (Long, Example,
// flag usage; so no man page either) recommends ExecStartPre= without "-".
func TestHelpExecStartPreIgnoresFailure(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		text := c.Long + "\n" + c.Example + "\n" + c.Short + "\n" + c.UsageString()
		if execStartPre.MatchString(text) {
			t.Errorf("%s --help: %q: want ExecStartPre=-/usr/bin/catchup ... (without the -, a failed scan keeps cron from starting)",
				c.CommandPath(), execStartPre.FindString(text))
		}
		if strings.Contains(text, "ExecStartPre") {
			t.Logf("%s --help mentions ExecStartPre", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&globals{}, nil))
}
