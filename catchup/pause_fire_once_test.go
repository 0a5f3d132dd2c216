package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPausedFireAfterAScanRecordsItsSlotOnce: a fire of a paused task
// records its slot paused; when a scan recorded that slot paused already
// (the fire late, or cron's and scan's at once), the fire records it no
// more (the ledger records a slot paused once, the fire's record as a
// scan's: store.Store.AddRun), runs nothing, and says the task is paused.
// Before, the slot held two paused records.
func TestPausedFireAfterAScanRecordsItsSlotOnce(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f, st := purgeRaceFixture(t, backend)
			if err := st.SetPause(ctx, "job", mustTime(t, "2026-03-01T10:30:00Z"), time.Time{}); err != nil {
				t.Fatal(err)
			}
			if _, err := Scan(ctx, st, f.m, scanRequest()); err != nil { // replays 10:00, records 11:00 and 12:00 paused
				t.Fatalf("scan: %v", err)
			}
			if _, err := Run(ctx, st, nil, f.m, f.request(t)); err != nil { // the 12:00 fire, late
				t.Fatalf("Run: %v", err)
			}
			if runs := f.job.runs(t); len(runs) != 2 {
				t.Errorf("the job ran %q; want the first fire and the replay of 10:00 (before the pause)", runs)
			}
			hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			paused := map[string]int{}
			for _, r := range hist {
				if r.Status == store.StatusPaused {
					paused[rfc(r.Slot)]++
				}
			}
			want := map[string]int{"2026-03-01T11:00:00Z": 1, "2026-03-01T12:00:00Z": 1}
			if len(paused) != len(want) || paused["2026-03-01T11:00:00Z"] != 1 || paused["2026-03-01T12:00:00Z"] != 1 {
				t.Errorf("paused records per slot %v; want %v (each slot once)", paused, want)
			}
		})
	}
}
