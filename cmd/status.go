package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup"
)

// Exit statuses of the non-run commands.
const (
	exitOK    = 0
	exitFound = 1 // ls --missed found missed slots; scan had a failed replay
	exitError = 2 // usage error, unreadable ledger
)

// exitStatus carries the exit status a command wants.
type exitStatus struct {
	code int
	err  error // printed when not nil
}

func (e *exitStatus) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitStatus) Unwrap() error { return e.err }

// usageErr is a usage error: 125 for run (it must not look like the job's
// own status), 2 for the other commands.
func usageErr(c *cobra.Command, err error) error {
	code := exitError
	if c.Name() == "run" {
		code = catchup.ExitInternal
	}
	return &exitStatus{code: code, err: fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
}

// failure maps a domain error to exit 2 with its message.
// exitCodeOf is the exit status err makes Execute return.
func exitCodeOf(err error) int {
	var es *exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &es):
		return es.code
	}
	return exitError
}

func failure(err error) error {
	if err == nil {
		return nil
	}
	return &exitStatus{code: exitError, err: err}
}
