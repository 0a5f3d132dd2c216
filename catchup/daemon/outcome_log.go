package daemon

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// Triggers of the fire and done lines: a scheduled fire, or a replay (the
// start-up catch-up, a rescan).
const (
	triggerSchedule = "schedule"
	triggerReplay   = "replay"
)

// ended is one fire's or replay's outcome, as its done or skip line tells it.
type ended struct {
	slot    time.Time
	run     int64
	status  string // "": not run (a skip line)
	exit    int
	trigger string
	seconds float64
	why     string // of a skip line: why it ran nothing ("": not said)
}

// logStarted logs a job's start (event=fire): late is a fire's lateness
// (a replay has none: late < 0).
func (d *Daemon) logStarted(task string, slot time.Time, pid int, trigger string, late time.Duration) {
	args := []any{"event", "fire", "task", task, "slot", slot.Format(time.RFC3339), "pid", pid}
	if late >= 0 {
		args = append(args, "late_ms", float64(late.Microseconds())/1000)
	}
	d.cfg.Log.Info("job started", append(args, "trigger", trigger)...)
}

// logEnded logs a fire's or replay's end: event=done, a warning when its run
// failed, timed out or was interrupted; event=skip when it did not run.
func (d *Daemon) logEnded(task string, e ended) {
	slot := e.slot.Format(time.RFC3339)
	if e.status == "" {
		msg := "not run"
		if e.why != "" {
			msg += ": " + e.why
		}
		d.cfg.Log.Info(msg, "event", "skip", "task", task, "slot", slot, "exit", e.exit, "trigger", e.trigger)
		return
	}
	level := slog.LevelInfo
	switch e.status {
	case store.StatusFailed, store.StatusTimeout, store.StatusInterrupted:
		level = slog.LevelWarn
	}
	d.cfg.Log.Log(context.Background(), level, "job ended", "event", "done", "task", task, "slot", slot,
		"run", e.run, "status", e.status, "exit", e.exit, "seconds", e.seconds, "trigger", e.trigger)
}

// replayEnded is a replay's outcome from scan's report of it.
func replayEnded(a catchup.SlotAction, seconds float64) ended {
	e := ended{slot: a.Slot, run: a.RunID, status: a.Status, exit: a.ExitCode, trigger: triggerReplay, seconds: seconds}
	switch {
	case a.Action == catchup.ActionSkipped:
		e.status = "" // not run: the slot taken, the task running, the slot held
	case a.Action == catchup.ActionInterrupted && a.NoExit:
		e.status, e.why = "", reasonStoppedFirst // the stop came before its job started
	case e.status == "" || e.status == store.StatusRunning:
		e.status = map[string]string{catchup.ActionReplayed: store.StatusSucceeded,
			catchup.ActionInterrupted: store.StatusInterrupted}[a.Action]
		if e.status == "" {
			e.status = store.StatusFailed
		}
	}
	return e
}

// replayLog logs a scan's replays of one task, each as a fire: its job's
// start (the first attempt's pid) and its end.
type replayLog struct {
	d     *Daemon
	task  string
	mu    sync.Mutex
	slot  time.Time
	begun time.Time
	pid   bool // the current replay's job start is logged
}

func (r *replayLog) hooks() catchup.ReplayHooks {
	return catchup.ReplayHooks{
		Start: func(_ string, slot time.Time) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.slot, r.begun, r.pid = slot, time.Now(), false
		},
		End: func(_ string, a catchup.SlotAction) {
			r.mu.Lock()
			begun := r.begun
			r.mu.Unlock()
			r.d.logEnded(r.task, replayEnded(a, time.Since(begun).Seconds()))
		},
	}
}

// started is the machine's OnJobStart for the scan's jobs.
func (r *replayLog) started(pid int) {
	r.mu.Lock()
	first, slot := !r.pid && !r.slot.IsZero(), r.slot
	r.pid = true
	r.mu.Unlock()
	if first {
		r.d.logStarted(r.task, slot, pid, triggerReplay, -1)
	}
}
