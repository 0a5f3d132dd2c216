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
						race.purge(ctx)
					}
				}
				rep, err := Scan(ctx, st, f.m, req)
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
