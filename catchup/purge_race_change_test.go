package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// purgeOnRecord is a ledger on which `catchup forget --purge` of task
// "job" (then, with again set, a new registration) commits just before
// the first write of records of status, checked (AddRunsOf) or not
// (AddRuns): after their writer read the task, before it records them.
type purgeOnRecord struct {
	*purgeRace
	status string
}

func (p *purgeOnRecord) at(ctx context.Context, runs []store.Run) {
	for _, r := range runs {
		if !p.purged && r.Task == "job" && r.Status == p.status {
			p.purge(ctx)
		}
	}
}

func (p *purgeOnRecord) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	p.at(ctx, runs)
	return p.Store.AddRuns(ctx, runs)
}

func (p *purgeOnRecord) AddRunsOf(ctx context.Context, registered store.Of, runs []store.Run) ([]int64, error) {
	p.at(ctx, runs)
	return p.Store.AddRunsOf(ctx, registered, runs)
}

// TestPurgeBeforeAScheduleChangesExpiriesRecordsNone: a fire that changes
// its task's schedule records the old schedule's missed slots expired; a
// forget --purge (and, in a case, a new registration) that commits after
// the fire read the task, before those records, wins: none is written
// (they were the purged task's), the fire says so and registers the task
// anew. Before, they were written as runs of no task, then of the task the
// fire registered anew.
func TestPurgeBeforeAScheduleChangesExpiriesRecordsNone(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, again := range map[string]bool{"purged": false, "purged and registered again": true} {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f, st := purgeRaceFixture(t, backend)
				var notices []string
				f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
				race := &purgeRace{Store: st, t: t, m: f.m}
				if again {
					race.again = f.now
				}
				racing := &purgeOnRecord{purgeRace: race, status: store.StatusExpired}
				req := f.request(t)
				req.Schedule = mustSchedule(t, "30 * * * *", "UTC") // slots 10:00 to 12:00 of the old one are left behind
				if _, err := Run(ctx, racing, nil, f.m, req); err != nil {
					t.Fatalf("Run: %v", err)
				}
				if !race.purged {
					t.Fatal("the purge never came: the fire recorded no expiry")
				}
				hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range hist {
					if r.Status == store.StatusExpired {
						t.Errorf("the ledger holds expired run %d of slot %s (%s); want none of the purged task's", r.ID, rfc(r.Slot), r.Reason)
					}
				}
				if all := strings.Join(notices, "\n"); !strings.Contains(all, "forgotten since this fire read it") {
					t.Errorf("notices %q; want one saying the task was forgotten since the fire read it", all)
				}
			})
		}
	}
}

// TestPurgeBeforeALinesFoldsRecordsNone: a scan's coalesced replay of a
// crontab line records the gap's folds before the line runs; a forget
// --purge (and, in a case, a new registration) that commits after the
// scan read the task again, before those folds, wins: none is written,
// nothing runs, and the scan says the task was forgotten. Before, the
// folds were written as runs of no task (or of the new registration).
func TestPurgeBeforeALinesFoldsRecordsNone(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, again := range map[string]bool{"purged": false, "purged and registered again": true} {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f := newRunFixture(t, "2026-03-01T10:00:30Z")
				var st store.Store = f.st
				if backend == "postgres" {
					st = testPostgres(t)
				}
				f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
				req := scanRequest()
				req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader("0 * * * * catchup run --task job -- true\n")}}
				if _, err := Scan(ctx, st, f.m, req); err != nil { // registers the line
					t.Fatalf("registering scan: %v", err)
				}
				f.now = mustTime(t, "2026-03-01T15:30:00Z")
				race := &purgeRace{Store: st, t: t, m: f.m}
				if again {
					race.again = f.now
				}
				racing := &purgeOnRecord{purgeRace: race, status: store.StatusSkipped}
				req = scanRequest()
				req.Replay = "coalesce"
				rep, err := Scan(ctx, racing, f.m, req)
				if err != nil {
					t.Fatalf("coalescing scan: %v", err)
				}
				if !race.purged {
					t.Fatal("the purge never came: the scan recorded no fold")
				}
				hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if len(hist) != 0 {
					t.Errorf("the ledger holds %d runs of task job (first: slot %s, %s); want none of the purged task's", len(hist), rfc(hist[0].Slot), hist[0].Status)
				}
				want := forgottenWarning("job")
				if len(rep.Tasks) != 1 || rep.Tasks[0].Replayed+rep.Tasks[0].Failed != 0 ||
					!strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), want) {
					t.Errorf("scan reported %+v; want nothing replayed, with the warning %q", rep.Tasks, want)
				}
			})
		}
	}
}
