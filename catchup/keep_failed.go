package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// keptBelowFailed is the watermark the ledger gives task old at a change of
// its schedule to one counting from through (its new watermark): just below
// the first slot after old's watermark, up to through, whose run failed or
// timed out and that no run succeeded, if there is one, else through. The
// watermark never passes a recent failed slot (guarantees S8), so that
// scan --retry-failed replays it if the new schedule has it. The ledger sets
// it in the same statement as the change (store.Store.UpsertTask); this is
// the same rule for a reader that writes nothing (scan --dry-run), so that
// it reads what the real scan then reads. A read fault gives through.
func keptBelowFailed(ctx context.Context, st store.Store, old store.Task, through time.Time) time.Time {
	after := old.SettledThrough.Add(time.Second)
	if !through.After(old.SettledThrough) {
		return through
	}
	runs, err := st.SlotRuns(ctx, old.Name, after.Truncate(time.Second), through, 0)
	if err != nil {
		return through
	}
	failed, succeeded := map[int64]time.Time{}, map[int64]bool{}
	for _, r := range runs {
		if r.Slot.IsZero() || !r.Slot.After(old.SettledThrough) || r.Slot.After(through) {
			continue
		}
		switch r.Status {
		case store.StatusFailed, store.StatusTimeout:
			failed[r.Slot.Unix()] = r.Slot
		case store.StatusSucceeded:
			succeeded[r.Slot.Unix()] = true
		}
	}
	kept := through
	for k, slot := range failed {
		if !succeeded[k] && slot.Add(-time.Second).Before(kept) {
			kept = slot.Add(-time.Second)
		}
	}
	return kept
}
