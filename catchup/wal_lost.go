package catchup

import (
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// A SQLite ledger whose -wal was lost at rest leaves a mark naming when
// the lost records were written (store.LostWindow); scan and the daemon
// replay nothing while it stands. The readers say it too: a missed slot
// due in that window may have run (its record among those lost), so its
// cause is wal-lost, not the one the records left suggest.

// walLostCauses is causes (in step with missed) with the cause of each
// slot in the window of st's lost records made CauseWalLost; causes as
// they are while no mark stands.
func walLostCauses(st store.Store, missed []time.Time, causes []string) []string {
	span, ok := store.LostWindow(st)
	if !ok || len(causes) != len(missed) {
		return causes
	}
	out := causes
	for i, s := range missed {
		if span.Holds(s) && out[i] != CauseWalLost {
			if len(out) > 0 && &out[0] == &causes[0] { // the caller's, copied before the first change
				out = slices.Clone(causes)
			}
			out[i] = CauseWalLost
		}
	}
	return out
}

// walLost makes a missed slot due in the window of st's lost records
// missed for that cause, with what it may mean and the fix.
func (x *Explanation) walLost(st store.Store) {
	span, ok := store.LostWindow(st)
	if !ok || !span.Holds(x.Slot) {
		return
	}
	x.Cause = CauseWalLost
	x.Summary = fmt.Sprintf("missed (%s: it may have run: its record was in the -wal lost with the ledger's records %s; "+
		"no scan replays while its mark stands); fix: if it did not run, catchup run --task %s --slot %s -- COMMAND; "+
		"then remove %s", CauseWalLost, span.Written(), x.Task.Name, x.Slot.UTC().Format(time.RFC3339), span.Mark)
}
