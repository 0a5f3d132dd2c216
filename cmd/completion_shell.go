package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// completionShells refuses what cobra's completion command took for help:
// `catchup completion` alone, or with a shell it has no script for
// (`completion bsh`), printed the help and exited 0, so a packaging step
// that wrote its output to a completions file installed the help text.
// Both are usage errors now; the shells' own subcommands are cobra's. It
// adds cobra's command first (cobra would, on Execute), when it is in the
// tree at all (newRoot leaves it out for another command).
func completionShells(root *cobra.Command, args []string) {
	root.InitDefaultCompletionCmd(args...)
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(c, errors.New("want a shell: catchup completion bash|zsh|fish|powershell"))
			}
			return usageErr(c, fmt.Errorf("unknown shell %s: use bash, zsh, fish or powershell", quotedValue(args[0])))
		}
	}
}
