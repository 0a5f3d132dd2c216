package cmd

import (
	"errors"
	"fmt"
	"slices"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/spf13/cobra"
)

// The argument checks of the commands that take positional arguments: a
// usage error that says what the command wants, what it got, and where its
// help is (cobra's own say only "accepts 1 arg(s), received 0").

// wantArgs accepts from min to max arguments (max < 0: no limit); what
// names them as the error says it: "one TASK", "at most one RUN_ID".
func wantArgs(min, max int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < min || max >= 0 && len(args) > max {
			return usageErr(c, fmt.Errorf("want %s, got %d arguments", what, len(args)))
		}
		return nil
	}
}

// errEmptyTask is the usage error of an empty TASK argument, which names
// no task: said as such, not as "no task "" in the ledger".
var errEmptyTask = errors.New("empty TASK: name a task (catchup ls lists them)")

// wantTasks is wantArgs for TASK arguments, and refuses an empty one.
func wantTasks(min, max int, what string) cobra.PositionalArgs {
	count := wantArgs(min, max, what)
	return func(c *cobra.Command, args []string) error {
		if err := count(c, args); err != nil {
			return err
		}
		if slices.Contains(args, "") {
			return usageErr(c, errEmptyTask)
		}
		return nil
	}
}

// taskWord is a word given for a task, for a command line in a hint: as
// it is when a task could have such a name, else NAME.
func taskWord(w string) string {
	if taskname.Valid(w) {
		return w
	}
	return "NAME"
}

// noArgs refuses any argument. A command that selects tasks with --task
// says so, since a task name is the likeliest stray argument; one that
// reads crontabs (the daemon) says to give it with --crontab. An argument
// with a secret's shape (a secret given there by mistake) is quoted masked.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	arg := redact.Value(args[0])
	if c.Flags().Lookup("task") != nil {
		return &exitStatus{code: exitError, err: fmt.Errorf("%s takes no arguments, got %s (--task %s names a task; see %s --help)",
			c.CommandPath(), taskname.Quoted(arg), taskWord(arg), c.CommandPath())}
	}
	if c.Flags().Lookup("crontab") != nil { // the daemon: its crontabs come by --crontab
		return &exitStatus{code: exitError, err: fmt.Errorf("%s takes no arguments, got %q (give a crontab with --crontab %s; see %s --help)",
			c.CommandPath(), arg, arg, c.CommandPath())}
	}
	return usageErr(c, fmt.Errorf("%s takes no arguments, got %q", c.CommandPath(), arg))
}
