package catchup

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestPrune(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		req       PruneRequest
		wantRuns  int64
		wantAfter int // runs left in the ledger
	}{
		"deletes what ended before the cut":    {req: PruneRequest{OlderThan: MinPruneAge, Keep: 1}, wantRuns: 3, wantAfter: 1},
		"keeps the newest runs of each task":   {req: PruneRequest{OlderThan: MinPruneAge, Keep: 3}, wantRuns: 1, wantAfter: 3},
		"a dry run counts and deletes nothing": {req: PruneRequest{OlderThan: MinPruneAge, Keep: 1, DryRun: true}, wantRuns: 3, wantAfter: 4},
		"a longer age cuts earlier":            {req: PruneRequest{OlderThan: 9*24*time.Hour + time.Hour, Keep: 1}, wantRuns: 1, wantAfter: 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, db := testLedger(t)
			now := mustTime(t, "2026-03-20T12:00:00Z")
			for _, age := range []time.Duration{11, 9, 8, 2} { // days ago
				end := now.Add(-age * 24 * time.Hour)
				if _, err := st.AddRun(ctx, store.Run{Task: "job", Trigger: store.TriggerManual, Status: store.StatusSkipped,
					Attempt: 1, StartedAt: end, EndedAt: end, Host: "testhost"}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Prune(ctx, st, testMachine(db, now), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if want := now.Add(-tc.req.OlderThan); got.Runs != tc.wantRuns || !got.Before.Equal(want) {
				t.Errorf("Prune = %+v, want %d runs before %v", got, tc.wantRuns, want)
			}
			left, err := st.History(ctx, store.HistoryFilter{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != tc.wantAfter {
				t.Errorf("%d runs left, want %d", len(left), tc.wantAfter)
			}
		})
	}
}

// TestPruneKeepsMissedSlotsInSight: prune moves every watermark up to its
// cut (the slots before it lose the runs that settled them), so a missed
// slot before the cut that scan has not dealt with yet (a task whose
// catch-up window is longer than --older-than) would vanish without a
// replay or an expired record. Prune refuses, naming the task, until scan
// has dealt with it.
func TestPruneKeepsMissedSlotsInSight(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.MaxAge = 30 * 24 * time.Hour
	// Daily: the rule needs missed slots on both sides of the cut, not
	// many (hourly, the scan spawned 456 jobs, a minute of a busy CI).
	req.Schedule = mustSchedule(t, "0 10 * * *", "UTC")
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-20T12:00:00Z") // 19 days of daily slots missed
	_, err := Prune(context.Background(), f.st, f.m, PruneRequest{OlderThan: MinPruneAge, Keep: 1})
	if err == nil || !strings.Contains(err.Error(), "task job") || !strings.Contains(err.Error(), "catchup scan") {
		t.Fatalf("prune with missed slots before its cut: %v; want a refusal naming task job and catchup scan", err)
	}
	ts := f.scan(t, ScanRequest{MaxReplays: 1000, MissedRule: MissedRule{MaxAge: req.MaxAge, Tolerance: 5 * time.Minute}})
	if ts.Replayed == 0 {
		t.Fatalf("scan replayed nothing: %+v", ts)
	}
	if _, err := Prune(context.Background(), f.st, f.m, PruneRequest{OlderThan: MinPruneAge, Keep: 1}); err != nil {
		t.Errorf("prune after the scan: %v", err)
	}
}

// TestPruneSeesEachTaskWindow: the check reads each task's own catch-up
// window: a gap 16-19 days old of a task with --max-age 30d (cron has fired
// since; no scan has run) is still to be replayed.
func TestPruneSeesEachTaskWindow(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T02:00:30Z")
	req := f.request(t)
	req.Schedule = mustSchedule(t, "0 2 * * *", "UTC")
	req.MaxAge = 30 * 24 * time.Hour
	for _, day := range []string{"01", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21"} {
		f.now = mustTime(t, "2026-03-"+day+"T02:00:30Z") // the host was down 03-02..03-05
		if res := f.run(t, req); res.ExitCode != 0 {
			t.Fatalf("fire of 03-%s: exit %d", day, res.ExitCode)
		}
	}
	f.now = mustTime(t, "2026-03-21T12:00:00Z")
	if _, err := Prune(context.Background(), f.st, f.m, PruneRequest{OlderThan: MinPruneAge, Keep: 1}); err == nil {
		t.Errorf("prune went ahead: the 4 slots missed 16-19 days ago, within the task's 30d window, would vanish")
	}
}

// TestPruneRecordsWhatScanWould: prune moves every watermark up to its
// cut, so each missed slot before the cut that scan would not replay is
// recorded first, as scan records it: expired (reason max-age) when older
// than the task's catch-up window, paused when it lies in the task's pause.
// None is erased unrecorded (S7b, S8, T4), and the scan that follows records
// none of them twice.
func TestPruneRecordsWhatScanWould(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pause       string           // when the task was paused (until resume); "" never
		wantPruned  map[string]int64 // the registering fire's run, 19 days old, stays: the newest that ran (--keep 1)
		wantScanned map[string]int64 // after the scan that follows
	}{
		"a slot older than the window is recorded expired": {
			wantPruned:  map[string]int64{store.StatusSucceeded: 1, store.StatusExpired: 12},
			wantScanned: map[string]int64{store.StatusSucceeded: 8, store.StatusExpired: 12},
		},
		"a slot of the pause is recorded paused": {
			pause:       "2026-11-05T00:00:00Z",
			wantPruned:  map[string]int64{store.StatusSucceeded: 1, store.StatusExpired: 3, store.StatusPaused: 9},
			wantScanned: map[string]int64{store.StatusSucceeded: 1, store.StatusExpired: 3, store.StatusPaused: 16},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-11-01T02:00:04Z")
			req := f.request(t)
			req.Schedule = mustSchedule(t, "0 2 * * *", "UTC")
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			if tc.pause != "" {
				f.now = mustTime(t, tc.pause)
				if _, err := Pause(ctx, f.st, f.m, PauseRequest{Task: "job"}); err != nil {
					t.Fatal(err)
				}
			}
			f.now = mustTime(t, "2026-11-20T12:00:00Z") // cut 11-13T12:00: slots 11-02..11-13 lie before it
			if _, err := Prune(ctx, f.st, f.m, PruneRequest{OlderThan: MinPruneAge, Keep: 1}); err != nil {
				t.Fatal(err)
			}
			counts := func(when string, want map[string]int64) {
				t.Helper()
				got, err := f.st.StatusCounts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(got["job"], want) {
					t.Errorf("runs by status %s: %v, want %v", when, got["job"], want)
				}
			}
			counts("after the prune", tc.wantPruned)
			if exp, err := f.st.ExpiredCounts(ctx); err != nil || exp["job"][store.ReasonMaxAge] != tc.wantPruned[store.StatusExpired] {
				t.Errorf("expired by reason: %v, %v; want %d max-age", exp["job"], err, tc.wantPruned[store.StatusExpired])
			}
			f.scan(t, ScanRequest{MaxReplays: 100, MissedRule: MissedRule{Tolerance: DefaultTolerance}})
			counts("after the scan", tc.wantScanned)
		})
	}
}
