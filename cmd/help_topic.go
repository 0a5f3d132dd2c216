package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// helpTopics makes `catchup help WORD...` that names no command an error
// (exit 2, one line), as `catchup WORD` is: cobra's help printed "Unknown
// help topic" and the whole usage, and exited 0, as if it had helped.
func helpTopics(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, h := range root.Commands() {
		if h.Name() != "help" || h.Run == nil {
			continue
		}
		show := h.Run
		h.RunE = func(c *cobra.Command, args []string) error {
			found, rest, err := c.Root().Find(args)
			if len(args) > 0 && (err != nil || found == nil || len(rest) > 0) {
				return &exitStatus{code: exitError, err: fmt.Errorf("unknown help topic %s (catchup --help lists the commands)",
					quotedValue(strings.Join(args, " ")))}
			}
			show(c, args)
			return nil
		}
	}
}
