package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestSilenceWarningAfterItsFiresWerePruned: a task none of whose fires is
// left in the ledger (pruned by a catchup that did not keep the latest),
// while prune deleted runs of its slots after its registration, is dated
// by its registration as "no fire recorded", saying that its runs up to
// the prune floor were pruned: it read "no fire since REGISTRATION", a date
// the operator took for the last fire. A task never pruned, or pruned of
// nothing after its registration, keeps the plain wording.
func TestSilenceWarningAfterItsFiresWerePruned(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 2, 0, 0, 0, time.UTC) }
	task := store.Task{Name: "t", Schedule: "0 2 * * *", Source: "run", RegisteredAt: day(1), MaxAge: 2 * 24 * time.Hour}
	for name, tc := range map[string]struct {
		prunedThrough time.Time
		want          string
	}{
		"pruned after its registration": {day(9), "no fire recorded since its registration at 2026-03-01T02:00:00Z " +
			"(its runs of slots up to 2026-03-09T02:00:00Z were pruned: a later fire may have been among them; more than its catch-up window, 2d)"},
		"never pruned": {time.Time{}, "no fire since 2026-03-01T02:00:00Z (more than its catch-up window, 2d)"},
	} {
		t.Run(name, func(t *testing.T) {
			tk := task
			tk.PrunedThrough = tc.prunedThrough
			s := &silence{last: map[string]time.Time{}, cron: day(20)}
			w := s.warning(tk, day(20), MissedRule{})
			if !strings.HasPrefix(w, tc.want) {
				t.Fatalf("warning = %q, want it to start %q", w, tc.want)
			}
		})
	}
}
