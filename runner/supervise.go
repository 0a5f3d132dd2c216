package runner

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// groupPollInterval is how often, after a termination request, Run checks
// whether the process group is gone before it escalates to SIGKILL.
const groupPollInterval = 50 * time.Millisecond

// killWait bounds how long Run waits, after SIGKILL, for the group to be
// gone: a killed process still holds the task's lock until it has exited,
// and one in uninterruptible sleep may take a while.
const killWait = time.Second

// stopJudge is how long what is left of a job's group may take to end of a
// stop its caller signalled itself (Config.Stop ended, the group signalled
// by the caller: the daemon's stop), once the job's own process exited,
// before it counts as a leftover that ignored the stop.
var stopJudge = 500 * time.Millisecond // a variable for tests only

// beforeCallerKill, if set, is called as the caller's kill is acted on,
// after its judge and before its SIGKILL (tests only).
var beforeCallerKill func()

// supervisor delivers signals to a started child and decides when Run may
// return.
//
// Invariants:
//   - every signal goes to the whole group (-pgid); SIGKILL also goes to
//     the main process itself, and any signal does when the main process
//     has left the group, so it can never escape a kill;
//   - once terminating, SIGKILL follows SIGTERM after killAfter unless the
//     whole group is gone first, and loop does not return before the
//     group is gone or killWait after the SIGKILL; the caller's kill
//     (Config.Kill) sends that SIGKILL at once;
//   - a pending judge of a stopped job's leftovers (judgeC) is done before
//     any SIGKILL: a kill that comes before its delay, a short killAfter
//     or the caller's, does not hide what ignored the stop;
//   - loop returns only after the main child was reaped, and at most
//     outputWait after that unless terminating;
//   - once the main child was reaped, what is left of its group is
//     terminated (unless keepLeftovers): nothing of a run outlives it but
//     what left the group (setsid).
type supervisor struct {
	proc       *os.Process
	pgid       int
	killAfter  time.Duration
	outputWait time.Duration
	// keepLeftovers leaves the group's other processes alone once the
	// main child exited (Config.KeepLeftovers).
	keepLeftovers bool
	onSignal      func(os.Signal) // Config.OnSignal
	// stop is Config.Stop (nil: none), signals the signals the run
	// forwards (forwardedSignals): a stop that ends with one of them as
	// its cause is forwarded as a signal caught (stopEnded).
	stop    context.Context
	signals []os.Signal

	leftover    int // live processes of the group when the main child exited
	ending      int // live processes of the group beside the main child at the caller's kill (judgeFirst)
	timedOut    bool
	forwarded   os.Signal // the last signal forwarded to the group
	terminating bool
	killC       <-chan time.Time
	killTimer   *time.Timer
	killWaitC   <-chan time.Time // fires killWait after SIGKILL
	judgeC      <-chan time.Time // fires stopJudge after a stopped job's exit (endLeftovers)
	killWaited  bool
	// callerKill is Config.Kill: the caller's kill (nil once seen).
	callerKill <-chan struct{}
}

// loop supervises until the child exited and its output is drained (each
// channel of drained closed or nil) or outputWait elapsed, and returns the
// child's wait status.
func (s *supervisor) loop(ctx context.Context, timeout time.Duration,
	sigCh <-chan os.Signal, exited <-chan *os.ProcessState, drained [2]<-chan struct{}) *os.ProcessState {
	var timeoutC <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	defer func() {
		if s.killTimer != nil {
			s.killTimer.Stop()
		}
	}()
	var (
		state      *os.ProcessState
		reaped     bool
		outputDone bool
		outputC    <-chan time.Time
		pollC      <-chan time.Time
	)
	ctxDone := ctx.Done()
	var stopDone <-chan struct{}
	if s.stop != nil {
		stopDone = s.stop.Done()
	}
	for {
		select {
		case sig := <-sigCh:
			s.forward(sig)
		case <-stopDone:
			stopDone = nil
			s.stopEnded(ctx, sigCh)
		case <-timeoutC:
			timeoutC = nil
			s.timedOut = true
			s.terminate()
		case <-ctxDone:
			ctxDone = nil
			s.terminate()
		case <-s.killC:
			s.killC = nil
			s.judgeFirst(reaped)
			s.kill()
			t := time.NewTimer(killWait)
			defer t.Stop()
			s.killWaitC = t.C
		case <-s.callerKill:
			s.callerKill = nil
			s.judgeFirst(reaped)
			if beforeCallerKill != nil {
				beforeCallerKill()
			}
			s.terminating = true
			if s.killWaitC == nil && !s.killWaited { // not killed yet
				s.killC = nil
				s.kill()
				t := time.NewTimer(killWait)
				defer t.Stop()
				s.killWaitC = t.C
			}
		case <-s.killWaitC:
			s.killWaitC, s.killWaited = nil, true
		case <-s.judgeC:
			s.judge()
		case state = <-exited:
			reaped, exited, timeoutC = true, nil, nil
			s.endingJudged(state)
			s.endLeftovers()
			t := time.NewTimer(s.outputWait)
			defer t.Stop()
			outputC = t.C
		case <-drained[0]:
			drained[0] = nil
		case <-drained[1]:
			drained[1] = nil
		case <-outputC:
			outputC, outputDone = nil, true
		case <-pollC:
		}
		outputDone = outputDone || drained == [2]<-chan struct{}{}
		if !reaped || !outputDone {
			continue
		}
		if !s.terminating || s.killWaited || s.groupGone() {
			return state
		}
		if pollC == nil {
			tk := time.NewTicker(groupPollInterval)
			defer tk.Stop()
			pollC = tk.C
		}
	}
}

// forward forwards sig, a signal from outside (unlike the timeout's own),
// and tells OnSignal of it first.
func (s *supervisor) forward(sig os.Signal) {
	s.forwarded = sig
	if s.onSignal != nil {
		s.onSignal(sig)
	}
	s.signal(sig)
}

// signal forwards sig to the group, and to the main process too if it has
// left the group.
func (s *supervisor) signal(sig os.Signal) {
	ss, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	_ = syscall.Kill(-s.pgid, ss)
	if pg, err := syscall.Getpgid(s.proc.Pid); err == nil && pg != s.pgid {
		_ = s.proc.Signal(ss) // safe after reaping: returns os.ErrProcessDone
	}
}

// terminate starts the SIGTERM → SIGKILL sequence; later calls are no-ops.
func (s *supervisor) terminate() {
	if s.terminating {
		return
	}
	s.terminating = true
	s.signal(syscall.SIGTERM)
	s.killTimer = time.NewTimer(s.killAfter)
	s.killC = s.killTimer.C
}

func (s *supervisor) kill() {
	_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	_ = s.proc.Signal(syscall.SIGKILL)
}

// endLeftovers terminates what is left of the group once the main child
// exited, counting it (not after a forwarded signal), unless the group is
// terminating already (timeout, signal) or keepLeftovers. kill(-pgid, 0) answers the usual case, an
// empty group, without scanning /proc.
func (s *supervisor) endLeftovers() {
	if s.terminating || s.keepLeftovers || errors.Is(syscall.Kill(-s.pgid, 0), syscall.ESRCH) {
		return
	}
	if s.forwarded == nil && s.stop != nil && s.stop.Err() != nil {
		// The caller stopped and signalled the group itself (the daemon's
		// stop): what is left may be dying of it, or ending cleanly (a
		// trap). Only what is still there stopJudge later ignored it.
		s.terminate()
		t := time.NewTimer(stopJudge)
		s.judgeC = t.C
		return
	}
	if s.forwarded != nil {
		// The whole group got the signal that stopped the main child: what
		// is left is dying of it too, or ignores it. Stopped, not counted:
		// the job left nothing behind of its own accord.
		s.terminate()
		return
	}
	n, ok := liveGroupMembers(s.pgid, 0)
	if ok && n == 0 {
		return // zombies only
	}
	s.leftover = max(n, 1) // without /proc: at least one
	s.terminate()
}

// judge counts what is left of the group of a job the caller stopped, once
// the job's own process exited: what is still there ignored the stop.
func (s *supervisor) judge() {
	s.judgeC = nil
	if !s.groupGone() {
		n, _ := liveGroupMembers(s.pgid, 0)
		s.leftover = max(n, 1)
	}
}

// judgeFirst judges before a SIGKILL what the judge would have judged
// later: pending (judgeC), or not yet started because the job's own
// process exited of the caller's stop but is not reaped yet (the kill
// came before the exit was seen).
func (s *supervisor) judgeFirst(reaped bool) {
	switch {
	case s.judgeC != nil:
		s.judge()
	case !reaped && !s.terminating && !s.keepLeftovers && s.forwarded == nil &&
		s.stop != nil && s.stop.Err() != nil:
		if processExited(s.proc.Pid) {
			s.judge()
			return
		}
		// Still running: the group dies with it, nothing outlived it. But
		// it may end of itself before the SIGKILL reaches it (its trap
		// done): then what of its group is there now outlived it
		// (endingJudged).
		s.ending, _ = liveGroupMembersBut(s.pgid, 0, s.proc.Pid)
	}
}

// endingJudged counts, once the job's own process was reaped, what
// judgeFirst found of its group beside it when the kill came, if that
// process then ended of itself, not of the SIGKILL.
func (s *supervisor) endingJudged(state *os.ProcessState) {
	if s.ending == 0 || s.leftover > 0 || state == nil {
		return
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return
	}
	s.leftover = s.ending
}

// groupGone reports whether no live process is left in the child's group.
// Zombies do not count: they hold no pipes and cannot act, and an orphan's
// zombie lingers until init reaps it, which some inits do slowly.
func (s *supervisor) groupGone() bool {
	if errors.Is(syscall.Kill(-s.pgid, 0), syscall.ESRCH) {
		return true
	}
	alive, ok := liveGroupMember(s.pgid)
	return ok && !alive
}
