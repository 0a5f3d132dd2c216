package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpStatesExitStatus: every command's --help says how it exits (the
// contract's table of exit statuses), so that an operator writing a probe
// or a unit file learns it where they look first. Before, the help of
// calendar, history, show, next, version and crontab wrap said nothing of
// it (history's and show's was only in the root's help).
func TestHelpStatesExitStatus(t *testing.T) {
	exit := regexp.MustCompile(`(?i)\bexit( status)?\b[^\n]*\b[0-9]`)
	var leaves []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.HasSubCommands() {
				walk(sub)
				continue
			}
			leaves = append(leaves, sub)
		}
	}
	walk(newRoot(&globals{}, nil))
	if len(leaves) < 20 {
		t.Fatalf("found %d commands, want every one of catchup's", len(leaves))
	}
	for _, leaf := range leaves {
		path := strings.Fields(leaf.CommandPath())[1:]
		t.Run(strings.Join(path, "_"), func(t *testing.T) {
			out := help(t, newRoot(&globals{}, nil), append(path, "--help"))
			if !exit.MatchString(out) {
				t.Errorf("catchup %s --help does not state its exit status:\n%s", strings.Join(path, " "), out)
			}
		})
	}
}

// TestHelpCalendarBlankCell: calendar's legend names every case a blank
// cell stands for, as the contract's table does: a slot passed by the
// task's watermark (its history pruned) is blank too, and read as "before
// the task was registered" it said the task did not exist then.
func TestHelpCalendarBlankCell(t *testing.T) {
	out := help(t, newRoot(&globals{}, nil), []string{"calendar", "--help"})
	for _, want := range []string{"registered", "schedule", "retired", "pruned"} {
		if !strings.Contains(out, want) {
			t.Errorf("calendar --help's blank cell does not name %q:\n%s", want, out)
		}
	}
}

// TestHelpBackfillExitOneForLeftSlots: backfill --help says that it exits
// 1 when a task's working directory is refused (its slots left, not run),
// as the contract does and as it exits (backfill_refused_workdir_once):
// it said 1 only for a failed slot, so a probe reading the help took the
// exit 1 of a backfill that ran nothing for a job's failure.
func TestHelpBackfillExitOneForLeftSlots(t *testing.T) {
	out := help(t, newRoot(&globals{}, nil), []string{"backfill", "--help"})
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "1 a slot failed, or a task's working directory was refused") {
		t.Errorf("backfill --help does not say it exits 1 when a working directory is refused:\n%s", out)
	}
}
