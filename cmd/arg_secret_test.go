package cmd

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestArgumentErrorsMaskSecrets: a positional argument that a command
// refuses (one given to a command that takes none, a run id, a percent) is
// quoted masked when it has a secret's shape, as a flag's value is
// (TestFlagValueErrorsMaskSecrets): a secret given there by mistake
// (catchup show PGPASSWORD=X, catchup ls https://u:X@h) was echoed in
// clear before.
func TestArgumentErrorsMaskSecrets(t *testing.T) {
	root := NewRootCommand()
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Args == nil {
			return
		}
		for _, v := range secretValues {
			if err := c.Args(c, []string{v}); err != nil {
				checked++
				msg := err.Error()
				if strings.HasPrefix(msg, "unknown command") { // as Execute prints cobra's
					msg = unknownCommand(msg)
				}
				if strings.Contains(msg, "hunter2") {
					t.Errorf("%s %s: the error echoes the secret: %q", c.CommandPath(), v, msg)
				}
			}
		}
	}
	walk(root)
	if checked == 0 {
		t.Fatal("no command refused a secret-shaped argument: the test checks nothing")
	}
	t.Setenv("CATCHUP_DB", filepath.Join(t.TempDir(), "c.db"))
	t.Setenv("CATCHUP_STATE_DIR", t.TempDir())
	for name, args := range map[string][]string{
		"show's run id":      {"show", "PGPASSWORD=hunter2"},
		"progress's percent": {"progress", "https://u:hunter2@h/x"},
		"a command":          {"PGPASSWORD=hunter2", "scan"},
	} {
		t.Run(name, func(t *testing.T) {
			root := NewRootCommand()
			root.SetArgs(args)
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			err := root.Execute()
			if err == nil {
				t.Fatalf("catchup %q: no error", args)
			}
			msg := err.Error()
			if strings.HasPrefix(msg, "unknown command") { // as Execute prints cobra's
				msg = unknownCommand(msg)
			}
			if strings.Contains(msg, "hunter2") || !strings.Contains(msg, "***") {
				t.Errorf("catchup %q: %q; want the argument quoted masked", args, msg)
			}
		})
	}
}
