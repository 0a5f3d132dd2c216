package catchup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// purgeRace is a ledger on which `catchup forget --purge` of task "job"
// commits at one exact moment of a scan or a backfill: at the first claim
// of a slot with trigger onClaim, or just after the first read of the task
// (afterRead: the scan's readAgain), before anything of it is written.
// again, when set, registers the task anew right after the purge (a fire
// of `catchup run --task job --cron ...`), as of that instant.
type purgeRace struct {
	store.Store
	t         *testing.T
	m         Machine
	onClaim   string
	afterRead bool
	again     time.Time
	purged    bool
	armed     bool // arm: at the task's next write of records or of its watermark
}

// arm makes the purge come at the scan's next write of the task's records
// or of its watermark (AddRunsOf, SetSettledOf): after the replay that
// armed it has its outcome recorded, a held one too. On SQLite a replay's
// outcome waits for the next claim or the end of the task's replays
// (replay_held.go): its run is running in the ledger until then, and a
// purge then is refused (store.ErrRunInProgress), as forget --purge is.
func (p *purgeRace) arm() { p.armed = true }

func (p *purgeRace) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	if p.armed && !p.purged {
		p.purge(ctx)
	}
	return p.Store.AddRunsOf(ctx, of, runs)
}

func (p *purgeRace) SetSettledOf(ctx context.Context, task string, of store.Of, through time.Time) error {
	if p.armed && !p.purged {
		p.purge(ctx)
	}
	return p.Store.SetSettledOf(ctx, task, of, through)
}

func (p *purgeRace) purge(ctx context.Context) {
	p.purged = true
	old, err := p.Store.Task(ctx, "job")
	if err != nil {
		p.t.Fatalf("read before the purge: %v", err)
	}
	if _, err := p.Store.Forget(ctx, "job", p.m.Now(), true); err != nil {
		p.t.Fatalf("forget --purge: %v", err)
	}
	if !p.again.IsZero() {
		old.RegisteredAt, old.UpdatedAt, old.SettledThrough = p.again, p.again, p.again.Add(-time.Second)
		if err := p.Store.UpsertTask(ctx, old); err != nil {
			p.t.Fatalf("register again: %v", err)
		}
	}
}

func (p *purgeRace) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !p.purged && p.onClaim != "" && req.Run.Trigger == p.onClaim {
		p.purge(ctx)
	}
	return p.Store.Claim(ctx, req)
}

func (p *purgeRace) Task(ctx context.Context, name string) (store.Task, error) {
	t, err := p.Store.Task(ctx, name)
	if !p.purged && p.afterRead && name == "job" && err == nil {
		p.purge(ctx)
	}
	return t, err
}

// purgeRaceFixture fires task "job" at 09:00 (registering it hourly) on
// backend's ledger, then moves the clock to 12:30: slots 10:00 to 12:00
// are missed.
func purgeRaceFixture(t *testing.T, backend string) (*runFixture, store.Store) {
	t.Helper()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	var st store.Store = f.st
	if backend == "postgres" {
		st = testPostgres(t)
	}
	if _, err := Run(context.Background(), st, nil, f.m, f.request(t)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	f.now = mustTime(t, "2026-03-01T12:30:00Z")
	return f, st
}

// ledgerWithout fails t unless the ledger holds no run of task "job"
// besides its first fire's, and only the job's first fire ran.
func ledgerWithout(t *testing.T, f *runFixture, st store.Store) {
	t.Helper()
	if runs := f.job.runs(t); len(runs) != 1 {
		t.Errorf("the job ran %q; want only the first fire (the purged task's slots must not run)", runs)
	}
	hist, err := st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range hist {
		if r.Slot.Before(mustTime(t, "2026-03-01T12:00:00Z")) {
			t.Errorf("the ledger holds run %d of the purged task (slot %s, %s); want none", r.ID, rfc(r.Slot), r.Status)
		}
	}
}

// TestPurgeDuringABackfillStopsIt: a forget --purge that commits during a
// backfill (before its first slot's claim) stops the backfill of the task:
// nothing runs, the task is not registered again (a backfill's claim
// registered a task first seen through its run), one notice says why.
func TestPurgeDuringABackfillStopsIt(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st := purgeRaceFixture(t, backend)
			var notices []string
			f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
			racing := &purgeRace{Store: st, t: t, m: f.m, onClaim: store.TriggerBackfill}
			reps, err := Backfill(context.Background(), racing, f.m, BackfillRequest{Tasks: []string{"job"},
				From: mustTime(t, "2026-03-01T10:00:00Z"), To: mustTime(t, "2026-03-01T12:00:00Z"),
				Only: "missing", Order: "oldest", Concurrency: 1})
			if err != nil {
				t.Fatalf("backfill: %v", err)
			}
			if !racing.purged {
				t.Fatal("the purge never came: the backfill claimed no slot")
			}
			ledgerWithout(t, f, st)
			if _, err := st.Task(context.Background(), "job"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("task job after the backfill: err %v; want it still purged (not found)", err)
			}
			if len(reps) != 1 || reps[0].Ran != 0 || reps[0].Left != 3 {
				t.Errorf("backfill reported %+v; want nothing run, its 3 slots left", reps)
			}
			if all := strings.Join(notices, "\n"); strings.Count(all, "was deleted during the backfill") != 1 {
				t.Errorf("notices %q; want one saying the task was deleted during the backfill", all)
			}
		})
	}
}

// TestPurgeAfterScanReadsTheTaskWritesNothing: a forget --purge that
// commits just after the scan read the task again (readAgain), before its
// expiry batch, wins: the batch refuses the task it no longer finds, and
// the scan says so, runs nothing and writes nothing (no orphan runs).
func TestPurgeAfterScanReadsTheTaskWritesNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st := purgeRaceFixture(t, backend)
			racing := &purgeRace{Store: st, t: t, m: f.m, afterRead: true}
			req := scanRequest()
			req.MaxReplays = 1 // 10:00 and 11:00 are recorded expired, 12:00 replayed
			rep, err := Scan(context.Background(), racing, f.m, req)
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			if !racing.purged {
				t.Fatal("the purge never came: the scan did not read the task")
			}
			ledgerWithout(t, f, st)
			if hist, _ := st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 100}); len(hist) != 0 {
				t.Errorf("the ledger holds %d runs of the purged task: %+v; want none", len(hist), hist)
			}
			want := forgottenWarning("job")
			if len(rep.Tasks) != 1 || rep.Tasks[0].Expired != 0 || rep.Tasks[0].Replayed != 0 ||
				!strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), want) {
				t.Errorf("scan reported %+v; want nothing expired or replayed, with the warning %q", rep.Tasks, want)
			}
		})
	}
}

// TestPurgeAndRegisterAgainBeforeAReplaysClaimRunsNothing: a forget
// --purge, then a fire that registers the task again (as of 12:00), both
// between the scan's read of the task and its replay's claim: the claim
// finds a task row, but not the registration the scan read, and refuses
// it. Before, the old registration's 10:00 ran under the new one.
func TestPurgeAndRegisterAgainBeforeAReplaysClaimRunsNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			f, st := purgeRaceFixture(t, backend)
			again := mustTime(t, "2026-03-01T12:00:00Z")
			racing := &purgeRace{Store: st, t: t, m: f.m, onClaim: store.TriggerReplay, again: again}
			rep, err := Scan(context.Background(), racing, f.m, scanRequest())
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			if !racing.purged {
				t.Fatal("the purge never came: the scan claimed no replay")
			}
			ledgerWithout(t, f, st)
			cur, err := st.Task(context.Background(), "job")
			if err != nil || !cur.RegisteredAt.Equal(again) {
				t.Errorf("task job after the scan: %+v, %v; want the new registration (as of %s)", cur, err, rfc(again))
			}
			want := forgottenWarning("job")
			if len(rep.Tasks) != 1 || rep.Tasks[0].Replayed != 0 || !strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), want) {
				t.Errorf("scan reported %+v; want task job not replayed, with the warning %q", rep.Tasks, want)
			}
		})
	}
}
