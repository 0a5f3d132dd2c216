package catchup

import (
	"context"

	"github.com/catchup/catchup/store"
)

// heldOutcome carries the outcome of one of scan's replays to the claim of
// the task's next replay, which records it in its own transaction
// (store.ClaimRequest.Settle): one commit, so one fsync, per replayed slot
// instead of two (docs/performance.md).
//
// Invariant: an outcome is held only while catchup does nothing but ready
// the next claim. It is recorded on its own (flush) before anything that
// waits or is seen outside catchup: a lock wait, the end of the task's
// replays, a stop. A replay whose outcome would be followed by a ping, an
// alert or a retry is never held (see holds). So a power cut loses a
// held outcome only in the moments it takes to ready the next claim; the
// slot is then interrupted and replayed, as after a cut just before any
// outcome's commit.
//
// While an outcome is held, its task's held-outcome marker names its run
// (replay_held_marker.go), so that no one on the host takes that run, still
// `running` in the ledger, for dead while the task's lock is free.
type heldOutcome struct {
	st     store.Store
	m      Machine
	s      *store.Settlement
	run    store.Run         // the run s settles, with its outcome: for giveBackPassed once recorded
	marker *taskLock         // the task's marker, locked while s is kept or riding a claim
	riding *store.Settlement // the outcome a claim took (take), until it is recorded or given back
	// carried is the outcome the task's latest claim recorded, of run
	// carriedRun, until a later write shows that claim's commit synced: a
	// granted claim is synced in the background as its job starts, and a
	// sync that fails (an I/O error) is told only to the next write, once.
	// The commit, and the outcome it carried, may then be lost: noted then
	// (lost), as an outcome whose own write failed is.
	carried     *store.Settlement
	carriedRun  store.Run
	carriedSync func() error // the claim's own sync (store.ClaimResult.Synced); nil: synced
}

// holds reports whether l's outcome may wait for the next claim: a local
// ledger (a shared one gains little and locks two slots at once), and
// nothing to do between the outcome and the next replay.
func (h *heldOutcome) holds(l *lifecycle) bool {
	return h != nil && !h.st.Shared() && l.req.Retries == 0 && l.req.NotifyCmd == "" && l.pinger == nil
}

// keep keeps the outcome s of run r (r.ID, with that outcome) for the
// next claim, once the task's marker names it; false (nothing kept: record
// it now) when the marker cannot be taken. Nothing is held before: every
// claim takes what is held, and a replay keeps its outcome only after its
// own claim.
func (h *heldOutcome) keep(r store.Run, s *store.Settlement) bool {
	if !markHeld(h.m, &h.marker, r.Task, s.ID) {
		return false
	}
	h.s, h.run = s, r
	return true
}

// giveBack returns an outcome taken by a claim that failed: held again
// (its marker is still taken), for flush.
func (h *heldOutcome) giveBack(s *store.Settlement) { h.s = s }

// recorded says that the outcome a claim took is recorded: the marker
// goes, and its slot is given back if a schedule change passed it
// (giveBackPassed), as for an outcome recorded on its own.
func (h *heldOutcome) recorded(ctx context.Context, synced func() error) {
	if h != nil {
		unmarkHeld(h.marker)
		giveBackPassed(ctx, h.st, h.m, h.run)
		h.synced() // this claim is a write after the one that carried the outcome before
		h.carried, h.carriedRun, h.carriedSync, h.riding = h.riding, h.run, synced, nil
	}
}

// synced says that a write made after the claim that carried an outcome
// succeeded: the outcome is on disk once that claim's own sync is (another
// task's write may have been told of its failure: scan --concurrency).
func (h *heldOutcome) synced() {
	if h == nil || h.carried == nil {
		return
	}
	if h.carriedSync != nil {
		if err := h.carriedSync(); err != nil {
			h.lost(err)
			return
		}
	}
	h.carried = nil
}

// lost says that a write failed (err) after the claim that carried an
// outcome: its sync may have failed, the commit lost with the outcome in
// it. The outcome is noted on this host: the next scan records it on its
// run if that run is still running, and leaves a recorded one as it is.
func (h *heldOutcome) lost(err error) {
	if h == nil || h.carried == nil {
		return
	}
	c, r := h.carried, h.carriedRun
	h.carried = nil
	h.m.notice("the outcome of run %d was recorded with the next claim, which the ledger may not have kept: %v", r.ID, err)
	noteOutcome(h.m, r, c.Outcome, err)
}

// take hands the held outcome to a claim, which records it.
func (h *heldOutcome) take() *store.Settlement {
	if h == nil {
		return nil
	}
	s := h.s
	h.s, h.riding = nil, s
	return s
}

// flush records the held outcome, if any, on its own, then lets the
// marker go.
func (h *heldOutcome) flush(ctx context.Context) error {
	if h == nil {
		return nil
	}
	defer func() {
		if h.marker != nil {
			h.marker.close()
			h.marker = nil
		}
	}()
	s := h.take()
	if s == nil {
		return nil
	}
	written := h.m.ledgerWrite(WriteOutcome)
	err := h.st.Finish(context.WithoutCancel(ctx), s.ID, s.Outcome)
	written()
	if err != nil {
		h.m.notice("cannot record the outcome of run %d: %v", s.ID, err)
		// Noted, as a replay's outcome recorded on its own is: else the
		// next scan takes its run, still running, for interrupted and runs
		// its slot, which ran, again.
		noteOutcome(h.m, h.run, s.Outcome, err)
		h.lost(err)
		return err
	}
	h.synced()
	// A replay cut short by a stop is recorded here, its scan's last: its
	// slot is given back if a schedule change registered meanwhile (a
	// lock-skipped --cron fire, a daemon's reload) passed it.
	giveBackPassed(ctx, h.st, h.m, h.run)
	return nil
}
