package catchup

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// A fire's --notify-cmd runs once its outcome is recorded and the task's
// lock let go, after the end ping (up to 10 s): a fire killed in between
// (a power cut) left its slot settled failed, and no process ever ran its
// alert (the slot is not missed: no missed-slot alert covers it). So,
// before a failed outcome can commit, the fire keeps its alert owed, as a
// scan keeps the alert of its expiries (oweAlert): a file in the ledger's
// private lock directory, synced, removed once the alert has run
// (finished). The next scan of this host (or prune, purge, migrate) that
// finds the fire gone runs the alert when the ledger holds the outcome the
// file was written for (payRunAlert): at least once (a kill between the
// alert and the removal repeats it), never lost. An outcome that never
// committed (killed before: the run is found dead, its slot replayed, and
// that replay alerts its own failure) owes nothing.

// owedRun is the run whose failure alert is owed, and the outcome the
// fire recorded for it: the alert is paid only if the ledger holds that.
type owedRun struct {
	ID       int64     `json:"id"`
	Slot     time.Time `json:"slot"`
	Trigger  string    `json:"trigger"`
	Attempt  int       `json:"attempt"`
	Status   string    `json:"status"`
	ExitCode *int      `json:"exit_code"`
	Signal   int       `json:"signal,omitempty"`
	Error    string    `json:"error,omitempty"`
	// CutBy is the retry whose cut in its delay this fire records, with
	// the error it records (its failed attempt's alert: oweCutRetryAlert).
	CutBy      int64  `json:"cut_by,omitempty"`
	CutByError string `json:"cut_by_error,omitempty"`
}

// oweRunAlert keeps the alert of run r owed, before its outcome out is
// recorded, when it is one that runs the --notify-cmd. A file that cannot
// be kept is said; the outcome is recorded anyway, its alert resting on
// this process alone, as before.
func (l *lifecycle) oweRunAlert(r store.Run, out store.Outcome) {
	l.keepRunAlert(r.Task, &owedRun{ID: r.ID, Slot: r.Slot, Trigger: r.Trigger, Attempt: r.Attempt,
		Status: out.Status, ExitCode: out.ExitCode, Signal: out.Signal, Error: out.Error})
}

// oweCutRetryAlert keeps owed, before retry's cut (why) is recorded, the
// alert of the failed attempt it followed (settle, recorded by the
// retry's claim), which this fire runs once it is over. Found dead in its
// delay before that record, the retry is the reaper's to alert
// (cutRetries): the file then owes nothing.
func (l *lifecycle) oweCutRetryAlert(retry store.Run, settle *store.Settlement, why string) {
	if settle == nil {
		return
	}
	out := settle.Outcome
	l.keepRunAlert(retry.Task, &owedRun{ID: settle.ID, Slot: retry.Slot, Trigger: retry.Trigger, Attempt: retry.Attempt - 1,
		Status: out.Status, ExitCode: out.ExitCode, Signal: out.Signal, Error: out.Error, CutBy: retry.ID, CutByError: why})
}

// keepRunAlert keeps the alert of run o of task owed (l.owedRun).
func (l *lifecycle) keepRunAlert(task string, o *owedRun) {
	if l.req.NotifyCmd == "" || l.m.LockDir == "" || o.ID == 0 ||
		!slices.Contains([]string{store.StatusFailed, store.StatusTimeout, store.StatusInterrupted}, o.Status) {
		return
	}
	a := owedAlert{Task: task, Cmd: l.req.NotifyCmd, Host: l.m.Host, BootID: l.m.BootID, PID: l.m.PID, Run: o,
		Dir: alertRunsIn(l.alertDir())}
	path, err := keepOwedAlert(l.m, func(w *bufio.Writer) error { return json.NewEncoder(w).Encode(a) })
	if err != nil {
		l.m.notice("cannot keep task %s's failure alert owed (%v): if this process ends before its alert runs, no later scan sends it",
			task, l.m.lockDirError(err))
		return
	}
	l.owedRun = &owedAlertFile{path: path}
}

// runAlertPaid is what became of an owed failure alert payRunAlert was
// given: paid (its file goes), left owed (to the next scan), or left owed
// because catchup was stopped while it ran.
type runAlertPaid int

const (
	runAlertLeft runAlertPaid = iota
	runAlertDone
	runAlertStopped
)

// payRunAlert pays owed alert a of a fire now gone: it runs the fire's
// --notify-cmd (as as says) for its run as the ledger holds it, if the
// ledger holds the outcome the fire recorded; its record deleted since (a
// purge), as the fire recorded it. Killed before that outcome committed,
// the fire owes nothing: done, no alert.
func payRunAlert(ctx context.Context, st store.Store, m Machine, a owedAlert, as notify.As) runAlertPaid {
	o := a.Run
	r, err := st.Run(ctx, o.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		r = store.Run{ID: o.ID, Task: a.Task, Slot: o.Slot, Trigger: o.Trigger, Attempt: o.Attempt,
			Status: o.Status, ExitCode: o.ExitCode, Signal: o.Signal, Error: o.Error}
	case err != nil:
		m.notice("cannot read run %d of task %s, whose failure alert is owed (%v): the next scan tries again", o.ID, a.Task, err)
		return runAlertLeft
	case r.Task != a.Task:
		// Not its task's run: never another task's outcome (its output
		// tail) to this command, whoever wrote the file.
		return runAlertDone
	case r.Status == store.StatusRunning:
		return runAlertLeft // not found dead yet: the scan that records it decides
	case !o.recorded(r):
		// Killed before its outcome committed: found dead, its slot is
		// replayed, and the replay alerts its own failure.
		return runAlertDone
	}
	if o.CutBy != 0 {
		cut, err := st.Run(ctx, o.CutBy)
		switch {
		case err != nil && !errors.Is(err, store.ErrNotFound):
			m.notice("cannot read run %d of task %s, whose failure alert is owed (%v): the next scan tries again", o.CutBy, a.Task, err)
			return runAlertLeft
		case err == nil && cut.Status == store.StatusRunning:
			return runAlertLeft // in its delay still: the scan that finds it dead alerts it
		case err == nil && cut.Error != o.CutByError:
			return runAlertDone // found dead in its delay: its reaper alerted it (cutRetries)
		}
	}
	var sched *schedule.Schedule // nil, its task gone: slots in UTC
	t, terr := st.Task(ctx, a.Task)
	if terr == nil {
		sched, _ = storedSchedule(m, nil, t)
	}
	if as == (notify.As{}) {
		as = owedAlertDir(m, a, t, terr == nil) // where its job ran, as its fire would have alerted
	}
	what := "its run " + strconv.FormatInt(r.ID, 10)
	if !r.Slot.IsZero() {
		what = "its run of slot " + formatSlot(r.Slot, sched)
	}
	m.notice("task %s: %s %s, and catchup (pid %d) ended before its alert ran: alerting it now", a.Task, what, endedWords(r.Status), a.PID)
	l := &lifecycle{st: st, m: m, sched: sched, req: RunRequest{Task: a.Task, NotifyCmd: a.Cmd}, alertAs: as}
	actx, cancel := alertContext(ctx)
	aerr := l.alert(actx, r)
	cancel()
	if ctx.Err() != nil || errors.Is(aerr, notify.ErrCutShort) {
		m.notice("task %s: stopped while it sent the failure alert of run %d: the next scan sends it again", a.Task, r.ID)
		return runAlertStopped
	}
	return runAlertDone
}

// recorded reports whether run r, as the ledger holds it, has the outcome
// the fire recorded (not one a scan recorded, finding it dead).
func (o *owedRun) recorded(r store.Run) bool {
	if r.Status != o.Status || r.Signal != o.Signal || (r.ExitCode == nil) != (o.ExitCode == nil) ||
		r.ExitCode != nil && *r.ExitCode != *o.ExitCode {
		return false
	}
	return r.Status != store.StatusInterrupted || r.Error == o.Error
}

// endedWords says how a run ended, after "its run ...".
func endedWords(status string) string {
	switch status {
	case store.StatusTimeout:
		return "timed out"
	case store.StatusInterrupted:
		return "was interrupted"
	}
	return status
}
