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
	"sync"
	"syscall"

	"github.com/catchup/catchup/internal/jobsup"
)

// Run starts cfg.Argv and waits for it.
//
// The child runs in its own process group (processAttr) so that forwarded
// signals, the timeout and ctx cancellation reach the whole group.
// Cancelling ctx acts like a kill request without a timeout: SIGTERM to the
// group, SIGKILL after KillAfter; Result reports the signal observed.
//
// Run returns an error only for misuse (empty Argv, nil ctx). A command
// that cannot start is reported through Result (Started=false, ExitCode
// 126/127, StartErr), and so is one that a stop of the caller (Config.Stop,
// Config.Gate) came before (Stopped): the stop is looked at the last
// moment before the fork, so that no command starts after it.
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
		return notStarted(startExitCode(err), startFailed(cfg.Argv[0], cfg.Dir, envPath(cfg.Env), err)), nil
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
	// ones that arrive early are forwarded once it has started (with
	// Config.Stop: they stop it from starting). One that came before is
	// the caller's to see: its Stop's cause (see Config.Stop).
	sigCh := make(chan os.Signal, 16)
	sigs := forwardedSignals(cfg.Signals)
	if len(sigs) > 0 {
		signal.Notify(sigCh, sigs...)
		defer signal.Stop(sigCh)
	}
	<-prepared()

	// The stop is looked at last, with the gate held until the command has
	// started and OnStart has returned: a stop either comes first, and the
	// command never starts, or after, and it knows of the command.
	if cfg.BeforeStart != nil {
		cfg.BeforeStart()
	}
	leave, open := cfg.Gate.enter()
	if !open {
		ss.abandon()
		return Result{ExitCode: exitCanceled, Stopped: true, StartErr: errors.New("not started: stopped first")}, nil
	}
	leave = sync.OnceFunc(leave)
	defer leave()
	if res, stopped := stopFirst(cfg.Stop, sigCh); stopped {
		ss.abandon()
		if res.Forwarded != nil && cfg.OnSignal != nil {
			cfg.OnSignal(res.Forwarded)
		}
		res.Forwarded = nil // caught, but there was no command to forward it to
		return res, nil
	}

	if cfg.DieWithParent {
		// The parent-death signal fires when the thread that forked exits:
		// fork from a thread the runtime keeps (it never ends a thread
		// that was unlocked again).
		runtime.LockOSThread()
	}
	if cfg.Credential != nil && !cfg.DieWithParent {
		err = startWithCronUmask(cmd)
	} else {
		err = cmd.Start()
	}
	if cfg.DieWithParent {
		runtime.UnlockOSThread()
	}
	if err != nil {
		ss.abandon()
		return notStarted(startExitCode(err), startFailed(cfg.Argv[0], cfg.Dir, envPath(cfg.Env), err)), nil
	}
	defer jobsup.Started()() // a stop of catchup waits for it (see jobsup)
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
	leave() // a stop now knows of the command

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
		stop:          cfg.Stop,
		signals:       sigs,
		callerKill:    cfg.Kill,
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

// stopFirst reports whether the caller's stop came before the start: stop
// done, or a signal caught (the Result's Forwarded, for OnSignal).
func stopFirst(stop context.Context, sigCh <-chan os.Signal) (Result, bool) {
	if stop == nil {
		return Result{}, false
	}
	select {
	case sig := <-sigCh:
		code := exitCanceled
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		return Result{ExitCode: code, Stopped: true, Forwarded: sig,
			StartErr: fmt.Errorf("not started: %v received", sig)}, true
	default:
	}
	if err := stop.Err(); err != nil {
		return Result{ExitCode: exitCanceled, Stopped: true, StartErr: fmt.Errorf("not started: %w", err)}, true
	}
	return Result{}, false
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
