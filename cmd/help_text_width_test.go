package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpFitsEightyColumns: every line of every command's and help
// topic's --help (its Long text, or Short when it has none, its usage,
// examples and flags), and each Short as the command lists show it, fits
// 80 columns: the flags did (TestHelpFlagsFitEightyColumns), but Long texts
// had lines of 81-103 columns, which an 80-column terminal broke mid-word.
func TestHelpFitsEightyColumns(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(NewRootCommand(), nil)
	for _, path := range paths {
		root := NewRootCommand()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(append([]string{"help"}, path...))
		if err := root.Execute(); err != nil {
			t.Errorf("catchup help %s: %v", strings.Join(path, " "), err)
			continue
		}
		for i, line := range strings.Split(out.String(), "\n") {
			if n := len([]rune(line)); n > helpColumns {
				t.Errorf("catchup help %s: line %d of %d columns: %q", strings.Join(path, " "), i+1, n, line)
			}
		}
	}
}
