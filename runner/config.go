package runner

import (
	"context"
	"io"
	"os"
	"syscall"
	"time"
)

// Defaults applied when the corresponding Config field is zero.
const (
	defaultKillAfter = 10 * time.Second
	// NoGrace as Config.KillAfter sends SIGKILL right after SIGTERM.
	NoGrace           time.Duration = -1
	defaultOutputWait               = 2 * time.Second
)

// Config describes one command to run.
type Config struct {
	// Argv is the command and its arguments. Argv[0] is looked up in the
	// PATH of Env if Env sets PATH, else in the process PATH, like
	// exec.Command; a name containing a slash is used as is.
	Argv []string
	// Dir is the working directory; "" inherits ours.
	Dir string
	// Env is the child's full environment; nil inherits ours.
	Env []string
	// Stdin is handed to the child directly; nil means /dev/null.
	Stdin *os.File
	// Stdout and Stderr receive the child's output unchanged, as it
	// arrives; the two are never merged. A nil writer discards (the tail is
	// still kept). A failing writer is dropped silently; the run goes on.
	Stdout io.Writer
	Stderr io.Writer
	// TailSize is how many bytes of the end of each stream to keep in
	// Result. 0 keeps nothing (byte counts are still reported).
	TailSize int
	// NoCapture hands Stdout/Stderr to the child directly when they are
	// *os.File (or nil, meaning /dev/null): no pipe, no tail, no count for
	// that stream. Other writers are still piped and captured.
	NoCapture bool
	// Timeout bounds the run; 0 means none. When it elapses the group gets
	// SIGTERM, then SIGKILL KillAfter later.
	Timeout time.Duration
	// KillAfter is the delay between SIGTERM and SIGKILL; 0 means 10s,
	// NoGrace (any negative value) none: SIGKILL right after SIGTERM.
	KillAfter time.Duration
	// OutputWait bounds how long Run waits, after the child exited, for
	// its output pipes to close (a process that left the group may hold
	// them); 0 means 2s.
	OutputWait time.Duration
	// KeepLeftovers leaves alone the processes left in the child's group
	// when the child exits. By default Run ends them as a timeout does
	// (SIGTERM, SIGKILL KillAfter later) and counts them in
	// Result.Leftover: a background child must not hold the task's lock
	// or run beside the next run. A process that left the group (setsid)
	// is never ended.
	KeepLeftovers bool
	// ExtraFiles are inherited by the child as fd 3, 4, ...
	ExtraFiles []*os.File
	// Signals are caught while the child runs and forwarded to its process
	// group. nil means SIGINT, SIGTERM, SIGHUP, SIGQUIT; an empty non-nil
	// slice forwards nothing.
	Signals []os.Signal
	// OnSignal, if set, is told of each signal caught for forwarding,
	// before it is forwarded: the caller knows of a stop before the job
	// can end by it (its own handler, in another goroutine, may run later).
	OnSignal func(os.Signal)
	// Credential, if set, runs the child as another user (uid, gid, groups:
	// needs root), in a session of its own, no terminal (processAttr), with
	// no descriptor of this process but its streams and ExtraFiles
	// (closeInheritedOnExec).
	Credential *syscall.Credential
	// DieWithParent makes the child's process group die when this process
	// dies, even of SIGKILL: a command that must not outlive its
	// supervisor (a shared ledger's lease ends with the supervisor). The
	// child gets PR_SET_PDEATHSIG, and a guard process SIGKILLs its whole
	// group (see guard.go; it needs /bin/sh). A process that left the group (setsid, a
	// daemon) is not covered.
	DieWithParent bool
	// OnStart, if set, is called with the child's pid right after it
	// started, before Run begins supervising; it should return promptly.
	OnStart func(pid int)
	// Stop, if set, is the caller's stop (ctx, by contrast, ends a
	// command that runs): once it is done, or a signal of Signals has been
	// caught, before the command started, Run does not start it
	// (Result.Stopped), and tells OnSignal of the signal. Run looks at the
	// last moment, once the command is set up (pipes, environment), just
	// before the fork. Without Stop, a signal caught before the start is
	// forwarded once the command has started.
	//
	// Once the command has started, a Stop that ends with a cause that
	// names a signal of Signals (StopBySignal: a stop signal the caller's
	// own handler caught, maybe before Run caught signals, and saw late)
	// has that signal forwarded as one caught would be (OnSignal told,
	// Result.Forwarded), unless a signal was forwarded already (that
	// stop, or a later one) or ctx has ended: a stop signal to this
	// process that did not keep the command from starting reaches it. A
	// Stop that ends for any other cause changes nothing for a command
	// that runs.
	Stop context.Context
	// Kill, if set, is the caller's kill of a command that runs (the
	// daemon's, at the end of its grace): once it is closed, the group
	// gets SIGKILL at once, and Run returns as after its KillAfter. What
	// is left of the group of a job whose own process ended of the
	// caller's stop (see Result.Leftover) is judged first: what is still
	// there then ignored the stop, even if the judge's delay had not
	// passed. A Kill closed before the start does not keep the command
	// from starting (Stop and Gate do): it kills it once it has started.
	Kill <-chan struct{}
	// Gate, if set, orders the start with a stop of the caller that is no
	// signal to this process (see Gate): a closed gate is a stop too.
	Gate *Gate
	// BeforeStart, if set, is called once the command is set up, just
	// before Run looks at Stop and Gate for the last time: a test holds a
	// start there, as a loaded machine may.
	BeforeStart func()
}

// Result is the outcome of one run.
type Result struct {
	// ExitCode is the status a wrapper should exit with: the command's
	// own; 128+N if it died of signal N; 124 on timeout (even though it
	// died of a signal); 126 if it was found but could not be executed
	// (EACCES, ENOEXEC, a directory, an unusable Dir); 127 if it was not
	// found; 125 if ctx was already done so it was never started.
	ExitCode int
	// Signal is the number of the signal that killed the child, 0 if none.
	Signal int
	// TimedOut is true when Config.Timeout elapsed before the child exited.
	TimedOut bool
	// Forwarded is the last signal received by this process and forwarded
	// to the child while it ran (caught, or the cause of Config.Stop); nil
	// if none. A caller can tell "stopped from outside" from the command's
	// own failure by it.
	Forwarded os.Signal
	// Leftover is how many live processes were left in the child's group
	// when it exited (none when the group was terminating already): Run
	// ended them (see Config.KeepLeftovers).
	Leftover int
	// Started is false when the command could not be started at all.
	Started bool
	// Stopped is true when the command was not started because the
	// caller's stop came first (Config.Stop, a signal caught, Config.Gate
	// closed): ExitCode is 128+N for a caught signal N, else 125.
	Stopped bool
	// StartErr says why it could not start; nil when Started.
	StartErr error
	// Pid is the child's process id (also its process group id); 0 when
	// not Started.
	Pid int
	// StdoutTail and StderrTail are the last TailSize bytes of each
	// stream, raw (possibly binary or invalid UTF-8).
	StdoutTail, StderrTail []byte
	// StdoutBytes and StderrBytes count every byte seen on each stream.
	StdoutBytes, StderrBytes int64
}
