package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// unknownShorthand is err with an unknown short flag named by its group
// only up to its letter (-p... for -pS3cret): the rest of the word may be
// a secret, the job's own option taken for catchup's when a flag's value
// or the -- before the command was forgotten. Any other error is err.
func unknownShorthand(err error) error {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) {
		return err
	}
	name, group := unknown.GetSpecifiedName(), unknown.GetSpecifiedShortnames()
	i := strings.Index(group, name)
	if name == "" || group == "" || i < 0 || i+len(name) == len(group) {
		return err
	}
	return fmt.Errorf("unknown shorthand flag: %q in -%s...", rune(name[0]), group[:i+len(name)])
}

// taskFlagOfAnArgument is err with the way to name the task for a command
// that takes TASK as an argument (history, explain, calendar, pause,
// resume, forget: its Use says so), when --task was given by habit from
// run, show --last and backfill. Any other error is err.
func taskFlagOfAnArgument(c *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) || unknown.GetSpecifiedName() != "task" || unknown.GetSpecifiedShortnames() != "" {
		return err
	}
	if f := strings.Fields(c.Use); len(f) < 2 || !strings.HasPrefix(strings.Trim(f[1], "[]"), "TASK") {
		return err
	}
	return fmt.Errorf("%w: catchup %s takes the task as an argument: catchup %s TASK", err, c.Name(), c.Name())
}

// negativeRunID is err as show's own refusal of a negative run id (show
// -1, typed without --), not an unknown shorthand flag. Any other error
// is err.
func negativeRunID(c *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) || c.Name() != "show" {
		return err
	}
	group := unknown.GetSpecifiedShortnames()
	if group == "" || strings.Trim(group, "0123456789") != "" {
		return err
	}
	return fmt.Errorf("invalid run id %q: want a positive number from catchup history", "-"+group)
}
