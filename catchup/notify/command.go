// Package notify tells someone how a run went: a monitor's ping (Pinger)
// and an alert command (Command). Neither ever changes a run's outcome or
// delays its job for long.
package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/runner"
)

// ErrCutShort marks an alert command that failed because catchup was being
// stopped: ctx ended, or a signal catchup received was forwarded to it. Its
// alert did not reach anyone for a reason of catchup's, not its own.
var ErrCutShort = errors.New("catchup is being stopped")

// cutShort is ErrCutShort said as its cause says it (ctx's).
type cutShort struct{ cause error }

func (c cutShort) Error() string        { return c.cause.Error() }
func (c cutShort) Unwrap() error        { return c.cause }
func (c cutShort) Is(target error) bool { return target == ErrCutShort }

// commandTimeout bounds an alert command: an alert must never hold catchup.
const commandTimeout = 30 * time.Second

// Command runs an alert command through /bin/sh -c with env, its output
// going to w. The error says why the alert failed; it is nil when the
// command exited 0. A command that never started (exec refused it: an
// environment too large, no /bin/sh) is reported as such, never by the
// 126 or 127 a shell would give it. Ending ctx ends the command (SIGTERM,
// SIGKILL a second later); the error then gives ctx's cause. signals are
// forwarded to it as to a job (runner.Config.Signals; nil: the default
// ones, SIGHUP among them).
func Command(ctx context.Context, cmd string, env []string, w io.Writer, signals []os.Signal) error {
	return CommandAs(ctx, cmd, env, w, signals, As{}, nil)
}

// As is whom an alert command runs as: another user (Cred, nil for this
// process's own), in Dir ("" this process's working directory).
type As struct {
	Cred *syscall.Credential
	Dir  string
}

// CommandAs is Command run as as says (root running another user's alert
// as that user: in a session of its own, as a replay of their line).
// stopping, if set, is told of each stop signal forwarded to the command
// (runner.Config.OnSignal), before the command can die of it: the
// caller's own handler of that signal may not have run yet, and a caller
// that went on as if no stop came would end as if none had.
func CommandAs(ctx context.Context, cmd string, env []string, w io.Writer, signals []os.Signal, as As, stopping func(os.Signal)) error {
	res, err := runner.Run(ctx, runner.Config{Argv: []string{"/bin/sh", "-c", cmd}, Env: env, Signals: signals, OnSignal: stopping,
		Stdout: w, Stderr: w, Timeout: commandTimeout, KillAfter: time.Second, Credential: as.Cred, Dir: as.Dir,
		KeepLeftovers: true}) // an alert holds no lock: what it left runs on
	switch {
	case err != nil:
		return fmt.Errorf("notify command: %w", err)
	case !res.Started:
		return fmt.Errorf("notify command could not start: %w", res.StartErr)
	case ctx.Err() != nil && res.ExitCode != 0:
		return fmt.Errorf("notify command cut short: %w", cutShort{context.Cause(ctx)})
	case res.Forwarded != nil && res.ExitCode != 0:
		// A stop signal catchup received reached it: catchup is being
		// stopped, whether or not ctx has ended yet.
		name := res.Forwarded.String()
		if sig, ok := res.Forwarded.(syscall.Signal); ok {
			name = unix.SignalName(sig)
		}
		return fmt.Errorf("notify command cut short: %w (%s, forwarded to it)", ErrCutShort, name)
	case res.TimedOut:
		return fmt.Errorf("notify command timed out after %s", commandTimeout)
	case res.ExitCode != 0:
		return fmt.Errorf("notify command failed with exit %d", res.ExitCode)
	}
	return nil
}
