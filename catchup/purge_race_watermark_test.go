package catchup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPurgeAfterAScansLastReplayMovesNoWatermark: a forget --purge (and,
// in a case, a new registration, as of 10:30) that commits after a scan's
// last replay ended, before the scan moves the task's watermark, wins: the
// old scan's watermark is not written to the new registration (whose
// 11:00 and 12:00 it would settle unrun), a purged task is not an error,
// and the scan says the task was forgotten. Before, the write moved the
// new registration's watermark past its missed slots, or failed the scan
// on the task it no longer found.
func TestPurgeAfterAScansLastReplayMovesNoWatermark(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, again := range map[string]bool{"purged": false, "purged and registered again": true} {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f, st := purgeRaceFixture(t, backend)
				race := &purgeRace{Store: st, t: t, m: f.m}
				if again {
					race.again = mustTime(t, "2026-03-01T10:30:00Z")
				}
				req := scanRequest()
				last := mustTime(t, "2026-03-01T12:00:00Z")
				req.Replays.End = func(task string, a SlotAction) {
					if a.Slot.Equal(last) {
						race.arm()
					}
				}
				rep, err := Scan(ctx, race, f.m, req)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				if !race.purged {
					t.Fatal("the purge never came: the scan did not replay 12:00")
				}
				cur, err := st.Task(ctx, "job")
				switch {
				case !again && !errors.Is(err, store.ErrNotFound):
					t.Errorf("task job after the scan: %+v, %v; want it still purged (not found)", cur, err)
				case again && err != nil:
					t.Errorf("task job after the scan: %v; want the new registration", err)
				case again && !cur.SettledThrough.Equal(race.again.Add(-time.Second)):
					t.Errorf("the new registration's watermark is %s; want %s (the old scan's must not move it past 11:00 and 12:00)",
						rfc(cur.SettledThrough), rfc(race.again.Add(-time.Second)))
				}
				want := forgottenWarning("job")
				if len(rep.Tasks) != 1 || !strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), want) {
					t.Errorf("scan reported %+v; want the warning %q", rep.Tasks, want)
				}
			})
		}
	}
}

// TestPurgeAfterACoalescedReplayRecordsNoCoveredSlot: a scan's coalesced
// replay that succeeded also records folded the failed slots before its
// gap it covered (10:00); a forget --purge (and, in a case, a new
// registration) that commits after the replay ended, before that record,
// wins: it is not written, and the scan says the task was forgotten.
// Before, it was written as a run of no task, or of the new registration.
func TestPurgeAfterACoalescedReplayRecordsNoCoveredSlot(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, again := range map[string]bool{"purged": false, "purged and registered again": true} {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f, st := purgeRaceFixture(t, backend)
				f.now = mustTime(t, "2026-03-01T10:00:30Z")
				failing := f.request(t)
				failing.Argv = []string{"sh", "-c", `[ "$CATCHUP_SLOT" != 2026-03-01T10:00:00Z ]`} // 10:00 fails, the replay succeeds
				if _, err := Run(ctx, st, nil, f.m, failing); err != nil {
					t.Fatalf("failing fire: %v", err)
				}
				f.now = mustTime(t, "2026-03-01T13:30:00Z")
				race := &purgeRace{Store: st, t: t, m: f.m}
				if again {
					race.again = mustTime(t, "2026-03-01T13:00:00Z")
				}
				req := scanRequest()
				req.Replay = "coalesce"
				last := mustTime(t, "2026-03-01T13:00:00Z")
				req.Replays.End = func(task string, a SlotAction) {
					if a.Slot.Equal(last) {
						race.arm()
					}
				}
				rep, err := Scan(ctx, race, f.m, req)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				if !race.purged {
					t.Fatal("the purge never came: the scan did not replay 13:00")
				}
				hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if len(hist) != 0 {
					t.Errorf("the ledger holds %d runs of task job (first: slot %s, %s); want none of the purged task's", len(hist), rfc(hist[0].Slot), hist[0].Status)
				}
				want := forgottenWarning("job")
				if len(rep.Tasks) != 1 || !strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), want) {
					t.Errorf("scan reported %+v; want the warning %q", rep.Tasks, want)
				}
			})
		}
	}
}
