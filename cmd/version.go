package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at build time: -ldflags "-X github.com/catchup/catchup/cmd.Version=v1.2.3".
var Version = "dev"

func newVersionCmd() *cobra.Command {
	c := &cobra.Command{
		Use:         "version",
		Annotations: map[string]string{opensNoLedger: "true", readsOnly: "true"},
		Short:       "Print catchup's version",
		Long: `Print catchup's version: the one set at build time with
-ldflags "-X github.com/catchup/catchup/cmd.Version=v1.2.3"; else the module
version the Go toolchain recorded (go install ...@v1.2.3, or a pseudo-version
of a git checkout); else the git revision; else "dev". It opens no ledger, so
the global --db, --host and --lease are refused (CATCHUP_DB is not). Exit 0, or
2 for a refused flag.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := refuseLedgerFlags(c, func(string) string { return "" }); err != nil {
				return err
			}
			_, err := fmt.Fprintln(c.OutOrStdout(), version())
			return err
		},
	}
	hideLedgerFlagsInUsage(c)
	return c
}

// version is Version when the build set it, else what the Go toolchain
// stamped into the binary, else "dev".
func version() string {
	if Version != "dev" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return versionFromBuildInfo(info)
}

// versionFromBuildInfo prefers the main module's version, then the VCS
// revision (12 digits, "-dirty" when the tree was modified).
func versionFromBuildInfo(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "dev"
	}
	rev = rev[:min(len(rev), 12)]
	if modified == "true" {
		rev += "-dirty"
	}
	return "dev-" + rev
}
