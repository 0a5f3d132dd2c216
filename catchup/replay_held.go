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
type heldOutcome struct {
	st store.Store
	m  Machine
	s  *store.Settlement
}

// holds reports whether l's outcome may wait for the next claim: a local
// ledger (a shared one gains little and locks two slots at once), and
// nothing to do between the outcome and the next replay.
func (h *heldOutcome) holds(l *lifecycle) bool {
	return h != nil && !h.st.Shared() && l.req.Retries == 0 && l.req.NotifyCmd == "" && l.pinger == nil
}

// hold keeps an outcome for the next claim. Nothing is held before: every
// claim takes what is held, and a replay holds its outcome only after its
// own claim.
func (h *heldOutcome) hold(s *store.Settlement) { h.s = s }

// take hands the held outcome to a claim, which records it.
func (h *heldOutcome) take() *store.Settlement {
	if h == nil {
		return nil
	}
	s := h.s
	h.s = nil
	return s
}

// flush records the held outcome, if any, on its own.
func (h *heldOutcome) flush(ctx context.Context) error {
	s := h.take()
	if s == nil {
		return nil
	}
	if err := h.st.Finish(context.WithoutCancel(ctx), s.ID, s.Outcome); err != nil {
		h.m.notice("cannot record the outcome of run %d: %v", s.ID, err)
		return err
	}
	return nil
}
