package catchup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPurgeDuringAPruneRecordsNothingOfIt: a forget --purge (then, in
// some cases, a fire that registers the task again) that commits after
// prune read the tasks, before it records their old missed slots expired
// or paused, wins: prune records nothing of the task (no orphan runs of
// the purged task, no old slots of it under the new registration), and
// leaves it whole, saying why. Before, prune recorded them all.
func TestPurgeDuringAPruneRecordsNothingOfIt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		paused bool // the task is paused: its slots since 03-02 are recorded paused
		again  bool // registered again after the purge
	}{
		"expired":                   {},
		"expired, registered again": {again: true},
		"paused":                    {paused: true},
		"paused, registered again":  {paused: true, again: true},
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f, st := purgeRaceFixture(t, backend)
				if tc.paused {
					if err := st.SetPause(ctx, "job", mustTime(t, "2026-03-02T00:00:00Z"), time.Time{}); err != nil {
						t.Fatal(err)
					}
				}
				f.now = mustTime(t, "2026-03-20T12:30:00Z") // the cut: 03-13 12:30; slots before it are older than the window
				racing := &purgeRace{Store: st, t: t, m: f.m}
				if tc.again {
					racing.again = f.now
				}
				req := PruneRequest{OlderThan: MinPruneAge, Keep: 1, beforeRecord: func() { racing.purge(ctx) }}
				got, err := Prune(ctx, st, f.m, req)
				if err != nil {
					t.Fatalf("Prune: %v", err)
				}
				hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				if len(hist) != 0 {
					t.Errorf("the ledger holds %d runs of task job (first: slot %s, %s); want none of the purged task's", len(hist), rfc(hist[0].Slot), hist[0].Status)
				}
				for _, r := range got.Recorded {
					if r.Task == "job" && r.Expired+r.Paused > 0 {
						t.Errorf("prune says it recorded %+v; want nothing of the purged task", r)
					}
				}
				if len(got.Left) != 1 || got.Left[0].Task != "job" || !strings.Contains(got.Left[0].Why, "forgotten since prune read it") {
					t.Errorf("prune left %+v; want task job, forgotten since prune read it", got.Left)
				}
				cur, err := st.Task(ctx, "job")
				switch {
				case !tc.again && !errors.Is(err, store.ErrNotFound):
					t.Errorf("task job after the prune: %+v, %v; want it still purged (not found)", cur, err)
				case tc.again && (err != nil || !cur.RegisteredAt.Equal(f.now)):
					t.Errorf("task job after the prune: %+v, %v; want the new registration (as of %s)", cur, err, rfc(f.now))
				}
			})
		}
	}
}
