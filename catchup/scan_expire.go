package catchup

import (
	"context"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// expiry is why the missed slots of a task are given up on (a schedule
// change's, a retirement's): what expireMissed records them with.
type expiry struct {
	reason string // in words, recorded as the run's error
	code   string // store.Reason*
	// live: the records are of a task read not retired (a schedule
	// change's): one retired since gets none (store.Of.Live).
	live bool
	// notesAfter, for a change, reports the notes of this host that stand
	// for slots of the new schedule, not the old one (editedLineFires).
	notesAfter func(spoolEntry) bool
	// unalerted: no alert runs for them, and none is kept owed (oweAlert):
	// the command that records them tells its operator (forget).
	unalerted bool
	// lineNotify: the notify command given is the task's own, as its line
	// writes it (the daemon's), which runs where its job runs
	// (taskAlertDir); else one given to this process (givenAlertAt).
	lineNotify bool
}

// reasonExpiredMeanwhile is why a slot to expire was not recorded: it was
// already.
const reasonExpiredMeanwhile = "recorded expired meanwhile by another scan or a prune"

// expireBatch is how many expiries expire records in one transaction: a
// gap of a year of an every-minute task is half a million of them, whose
// records built at once took 160 MB; a batch takes 1 MB, and its commit
// little beside its inserts.
const expireBatch = 4096

// expirySpan is a run of missed slots, oldest first, that scan gives up
// on for one reason (code: store.Reason*), with their causes in step
// (shorter: "" for the rest). A span holds the missed-slot rule's own
// slices: a gap of a year's expiries are not copied.
type expirySpan struct {
	slots        []time.Time
	causes       []string
	reason, code string
}

// cause is the cause of the span's i-th slot ("" when not known).
func (e expirySpan) cause(i int) string {
	if i < len(e.causes) {
		return e.causes[i]
	}
	return ""
}

// expiryCount is how many slots spans hold.
func expiryCount(spans []expirySpan) int {
	n := 0
	for _, e := range spans {
		n += len(e.slots)
	}
	return n
}

// expire records each slot of spans once as expired, in transactions of
// expireBatch slots, oldest first (or, in a dry run, only says it would).
// A scan stopped between two keeps the batches recorded: an expired slot
// is settled, and the next scan expires the rest. A slot another scan or a prune
// recorded expired since this one read the task is not recorded again: it
// is reported skipped, and counts as dealt with. of, when set, is the
// task as the caller read it: a task purged since (or purged and
// registered again) gets no record, and store.ErrGone is returned; with
// of.Live (a scan's, a prune's), one retired since neither: store.ErrRetired.
func (ts *TaskScan) expire(ctx context.Context, st store.Store, m Machine, t store.Task, of store.Of, spans []expirySpan, dry bool) error {
	now := m.Now() // one reading: a record decided at once takes no time
	n := expiryCount(spans)
	if len(ts.Actions) == 0 {
		ts.expiries.grow(n)
	}
	runs := make([]store.Run, 0, min(n, expireBatch))
	batch := make([]SlotAction, 0, min(n, expireBatch)) // each record's report, as it would be if recorded
	k, i := 0, 0                                        // the next slot: spans[k].slots[i]
	for k < len(spans) {
		runs, batch = runs[:0], batch[:0]
		for ; k < len(spans) && len(runs) < expireBatch; k, i = k+1, 0 {
			e := spans[k]
			for ; i < len(e.slots) && len(runs) < expireBatch; i++ {
				runs = append(runs, store.Run{Task: t.Name, Slot: e.slots[i], Trigger: store.TriggerReplay, Status: store.StatusExpired,
					Attempt: 1, StartedAt: now, EndedAt: now, Host: m.Host, PID: m.PID, BootID: m.BootID,
					Error: e.reason, Reason: e.code})
				batch = append(batch, SlotAction{Slot: e.slots[i], Action: ActionWouldExpire, Reason: e.reason, Cause: e.cause(i)})
			}
			if i < len(e.slots) {
				break // the batch is full: its next one goes on from here
			}
		}
		if len(runs) == 0 {
			break // spans left, all empty: no transaction for nothing
		}
		var ids []int64
		if !dry {
			var err error
			if ids, err = st.AddRunsOf(ctx, of, runs); err != nil {
				return err
			}
		}
		ts.expired(batch, ids, dry)
	}
	return nil
}

// expired reports the slots of batch expired, as AddRunsOf recorded them
// (ids; none in a dry run). They are kept apart (expiries), compactly,
// unless the report holds other actions already, which they follow.
func (ts *TaskScan) expired(batch []SlotAction, ids []int64, dry bool) {
	for i, a := range batch {
		switch {
		case !dry && ids[i] == 0:
			// Another scan or a prune recorded it expired since this one
			// read the task: the ledger keeps one record (store.AddRuns).
			ts.Skipped++
			a = SlotAction{Slot: a.Slot, Action: ActionSkipped, Reason: reasonExpiredMeanwhile, Cause: a.Cause}
		case !dry:
			a.Action, a.RunID = ActionExpired, ids[i]
			ts.Expired++
		default:
			ts.Expired++
		}
		if len(ts.Actions) > 0 {
			ts.Actions = append(ts.Actions, a)
			continue
		}
		ts.expiries.add(a)
	}
}

// watermarkHorizon: for the watermark, a slot older than this (or than the
// task's catch-up window, when larger) counts as dealt with even if it never
// ran, so that one slot lost long ago does not hold the watermark back
// forever.
const watermarkHorizon = 7 * 24 * time.Hour

// advanceWatermark moves the task's watermark up to the first slot this scan
// left missed (or to the end of the window it looked at), so that later
// scans and listings do not read those runs again. It never passes a slot
// that is still missed or failed and younger than the horizon, nor one that
// a run was running when scan read the task; and the ledger refuses to move
// it past a running or interrupted run, and to move that of a task purged
// since t was read, or purged and registered again (store.ErrGone), or
// retired since (store.ErrRetired).
func advanceWatermark(ctx context.Context, st store.Store, m Machine, t store.Task, ts TaskScan, win window, rule MissedRule) error {
	horizon := m.Now().Add(-max(catchupWindow(t, rule), watermarkHorizon))
	// The slots settled, sorted: a gap of a year's half a million, as a
	// map, took 20 MB more.
	resolved := make([]int64, 0, len(ts.expiries.entries)+len(ts.Actions))
	for a := range ts.SlotActions() {
		// A replay that succeeded, an expiry or a slot found done settles
		// it; a lock skip (exit 75) leaves it missed, a slot found held by a
		// running run may still be given back, and a failed replay may
		// still be retried (--retry-failed): all hold it back.
		// A slot another run failed since the scan read it stays failed;
		// one noted since waits for the next scan to record its note.
		if a.Action == ActionReplayed || a.Action == ActionExpired ||
			(a.Action == ActionSkipped && a.ExitCode != exitLocked && !a.held && !a.failedMeanwhile && !a.notedMeanwhile) {
			resolved = append(resolved, a.Slot.Unix())
		}
	}
	slices.Sort(resolved)
	through := win.upTo
	for _, s := range ts.Missed {
		if _, settled := slices.BinarySearch(resolved, s.Unix()); !settled && s.After(horizon) {
			through = earliest(through, s.Add(-time.Second)) // a slot missed past upTo (diedFiring) moves nothing
			break
		}
	}
	if f := win.firstFailed; !f.IsZero() && f.After(horizon) && f.Add(-time.Second).Before(through) {
		// A failed slot may still be retried (scan --retry-failed).
		through = f.Add(-time.Second)
	}
	if g := ts.gaveBackFrom; !g.IsZero() && g.Add(-time.Second).Before(through) {
		// Folds given back by this scan: missed again, though it read
		// them settled (not among ts.Missed).
		through = g.Add(-time.Second)
	}
	if f := win.firstRunning; !f.IsZero() && f.Add(-time.Second).Before(through) {
		// A run running when scan read the task may end without settling its slot
		// (another host's claim given back as a lock skip): the ledger
		// refuses to pass a running run, but by the time the watermark is
		// written this one may be a skip.
		through = f.Add(-time.Second)
	}
	if !through.After(t.SettledThrough) {
		return nil
	}
	return st.SetSettledOf(ctx, t.Name, store.OfLive(t.RegisteredAt), through) // not a task purged or retired since
}
