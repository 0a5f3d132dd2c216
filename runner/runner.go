// Package runner starts and supervises one process: it runs it in its own
// process group, forwards signals to that group, enforces a timeout, copies
// its output while keeping a bounded tail of each stream, and maps how it
// ended to the exit status a wrapper should exit with.
//
// The package knows nothing about cron, tasks or the ledger, and never reads
// the wall clock for anything a caller would record.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
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
	// to the child while it ran; nil if none. A caller can tell "stopped
	// from outside" from the command's own failure by it.
	Forwarded os.Signal
	// Leftover is how many live processes were left in the child's group
	// when it exited (none when the group was terminating already): Run
	// ended them (see Config.KeepLeftovers).
	Leftover int
	// Started is false when the command could not be started at all.
	Started bool
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

// Run starts cfg.Argv and waits for it.
//
// The child runs in its own process group (processAttr) so that forwarded
// signals, the timeout and ctx cancellation reach the whole group.
// Cancelling ctx acts like a kill request without a timeout: SIGTERM to the
// group, SIGKILL after KillAfter; Result reports the signal observed.
//
// Run returns an error only for misuse (empty Argv, nil ctx). A command
// that cannot start is reported through Result (Started=false, ExitCode
// 126/127, StartErr).
//
// When the child exits, what is left of its group is terminated (see
// Config.KeepLeftovers). Run always returns: at most about OutputWait after
// the child exits, plus KillAfter when it had to terminate the group, plus a short grace if a
// destination writer is blocked. While it runs, SIGPIPE is caught so that a
// write to a closed stdout fails with EPIPE instead of killing us.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if ctx == nil {
		return Result{}, errors.New("runner: nil context")
	}
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return Result{}, errors.New("runner: empty argv")
	}
	switch {
	case cfg.KillAfter == 0:
		cfg.KillAfter = defaultKillAfter
	case cfg.KillAfter < 0:
		cfg.KillAfter = 0
	}
	if cfg.OutputWait <= 0 {
		cfg.OutputWait = defaultOutputWait
	}
	if err := ctx.Err(); err != nil {
		return notStarted(exitCanceled, fmt.Errorf("not started: %w", err)), nil
	}
	path, err := lookPath(cfg.Argv[0], envPath(cfg.Env))
	if err != nil {
		return notStarted(startExitCode(err), fmt.Errorf("start %s: %w", cfg.Argv[0], err)), nil
	}
	if err := checkDir(cfg.Dir); err != nil {
		return notStarted(exitCannotExec, fmt.Errorf("start %s: %w", cfg.Argv[0], err)), nil
	}

	if cfg.Credential != nil {
		if err := closeInheritedOnExec(); err != nil {
			return notStarted(exitCannotExec, fmt.Errorf("start %s: keep this process's descriptors from its user: %w", cfg.Argv[0], err)), nil
		}
	}
	cmd := &exec.Cmd{
		Path:        path,
		Args:        cfg.Argv,
		Env:         cfg.Env,
		Dir:         cfg.Dir,
		ExtraFiles:  cfg.ExtraFiles,
		SysProcAttr: processAttr(cfg.Credential),
	}
	if cfg.Stdin != nil {
		cmd.Stdin = cfg.Stdin
	}
	if cfg.DieWithParent {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	var ss streams
	var childEnds []*os.File // pipe write ends, closed once the child has them
	defer func() {
		for _, f := range childEnds {
			_ = f.Close()
		}
	}()
	for i, dst := range []io.Writer{cfg.Stdout, cfg.Stderr} {
		child, s, err := capture(dst, cfg.NoCapture, cfg.TailSize)
		if err != nil {
			ss.abandon()
			return notStarted(exitCannotExec, fmt.Errorf("output pipe: %w", err)), nil
		}
		if s != nil {
			childEnds = append(childEnds, child)
		}
		slot, strm := &cmd.Stdout, &ss.out
		if i == 1 {
			slot, strm = &cmd.Stderr, &ss.err
		}
		*strm = s
		if child != nil { // never store a typed nil in the interface
			*slot = child
		}
	}

	// Catch signals before the child exists so none is lost in between;
	// ones that arrive early are forwarded once it has started.
	sigCh := make(chan os.Signal, 16)
	if sigs := forwardedSignals(cfg.Signals); len(sigs) > 0 {
		signal.Notify(sigCh, sigs...)
		defer signal.Stop(sigCh)
	}
	<-prepared()

	if cfg.DieWithParent {
		// The parent-death signal fires when the thread that forked exits:
		// fork from a thread the runtime keeps (it never ends a thread
		// that was unlocked again).
		runtime.LockOSThread()
	}
	err = cmd.Start()
	if cfg.DieWithParent {
		runtime.UnlockOSThread()
	}
	if err != nil {
		ss.abandon()
		return notStarted(startExitCode(err), fmt.Errorf("start %s: %w", cfg.Argv[0], err)), nil
	}
	for _, f := range childEnds {
		_ = f.Close()
	}
	childEnds = nil
	if cfg.DieWithParent {
		// Without a guard (it could not start) the child itself still
		// dies with us, through PDEATHSIG.
		g, _ := startGuard(cmd.Process.Pid)
		defer g.disarm()
	}
	ss.start()
	if cfg.OnStart != nil {
		cfg.OnStart(cmd.Process.Pid)
	}

	exited := make(chan *os.ProcessState, 1)
	go func() {
		_ = cmd.Wait() // a non-zero status is read from ProcessState
		exited <- cmd.ProcessState
	}()
	sv := &supervisor{
		proc:       cmd.Process,
		pgid:       cmd.Process.Pid,
		killAfter:  cfg.KillAfter,
		outputWait: cfg.OutputWait,

		keepLeftovers: cfg.KeepLeftovers,
		onSignal:      cfg.OnSignal,
	}
	state := sv.loop(ctx, cfg.Timeout, sigCh, exited, ss.done())

	res := Result{Started: true, Pid: cmd.Process.Pid, TimedOut: sv.timedOut, Forwarded: sv.forwarded,
		Leftover: sv.leftover}
	res.ExitCode, res.Signal = exitStatus(state)
	if sv.timedOut {
		res.ExitCode = exitTimedOut
	}
	if ss.out != nil {
		res.StdoutTail, res.StdoutBytes = ss.out.finish()
	}
	if ss.err != nil {
		res.StderrTail, res.StderrBytes = ss.err.finish()
	}
	return res, nil
}

func notStarted(code int, err error) Result {
	return Result{ExitCode: code, StartErr: err}
}

// capture decides how one output stream reaches dst. With noCapture and a
// *os.File (or nil) dst, the child gets that file itself (nil: /dev/null) and
// s is nil. Otherwise child is the write end of a new pipe drained by s.
func capture(dst io.Writer, noCapture bool, tailSize int) (child *os.File, s *stream, err error) {
	f, isFile := dst.(*os.File)
	if isFile && f == nil {
		dst, isFile = nil, false // a typed nil means "no destination"
	}
	if noCapture && (isFile || dst == nil) {
		return f, nil, nil
	}
	s, w, err := newStream(dst, tailSize)
	if err != nil {
		return nil, nil, err
	}
	return w, s, nil
}

func forwardedSignals(sigs []os.Signal) []os.Signal {
	if sigs == nil {
		return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
	}
	return sigs
}
