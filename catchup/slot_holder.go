package catchup

import (
	"fmt"

	"github.com/catchup/catchup/store"
)

// claimHolder is the run among a slot's records (by id) that holds the
// slot against a replay's claim, by the claim's own rule (store.HoldsSlot,
// not forced): the latest that succeeded or is running, as the claim names
// it ("already succeeded (run N)"). A running record known to be dead
// (stale) holds nothing: scan marks it interrupted before it claims.
func claimHolder(records []store.Run, stale map[int64]bool) (store.Run, bool) {
	var h store.Run
	found := false
	for _, r := range records {
		if store.HoldsSlot(r, false) && !stale[r.ID] && (!found || r.ID > h.ID) {
			h, found = r, true
		}
	}
	return h, found
}

// failedSince says, for explain, that a slot held by its success h has a
// later failed or timed-out record (another host's, migrated into a shared
// ledger, or a failed run --force): history, which no scan retries, since
// the claim refuses the slot as already succeeded. "" when there is none.
func failedSince(records []store.Run, h store.Run) string {
	if h.Status != store.StatusSucceeded {
		return ""
	}
	for i := len(records) - 1; i >= 0; i-- {
		if r := records[i]; r.ID > h.ID && failedAttempt(r) {
			return fmt.Sprintf("; run %d of it %s later: no scan retries a slot that succeeded", r.ID, r.Status)
		}
	}
	return ""
}
