package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Version is set at build time: -ldflags "-X github.com/catchup/catchup/cmd.Version=v1.2.3".
var Version = "dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print catchup's version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(c.OutOrStdout(), Version)
			return err
		},
	}
}
