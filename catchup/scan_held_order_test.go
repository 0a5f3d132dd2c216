package catchup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/internal/pgtest"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
)

// sharedLedgers are the real ledgers a fleet test runs on, by name: a
// SQLite file (seen as shared by the wrappers that use it) and, when
// pgtest's DSN is set, a PostgreSQL schema of the test's own.
var sharedLedgers = map[string]func(t *testing.T) (store.Store, string){
	"sqlite": func(t *testing.T) (store.Store, string) {
		st, path := testLedger(t)
		return st, path
	},
	"postgres": func(t *testing.T) (store.Store, string) {
		dsn, err := pgtest.Schema(t, pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, dsn
	},
}

// finishedClaim is a real ledger seen as a shared one, where host b claims
// one slot just before this host's replay of it claims it, and at once
// records b's run of it succeeded: the slot is settled elsewhere.
type finishedClaim struct {
	store.Store
	claimAt time.Time
}

func (f *finishedClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !f.claimAt.IsZero() && req.Run.Slot.Equal(f.claimAt) {
		f.claimAt = time.Time{}
		b, err := f.Store.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: req.Run.Task, Slot: req.Run.Slot,
			Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: req.Run.StartedAt, Host: "b"}})
		if err != nil {
			return store.ClaimResult{}, err
		}
		if err := f.Store.Finish(ctx, b.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: req.Run.StartedAt,
			ExitCode: exitCodePtr(0)}); err != nil {
			return store.ClaimResult{}, err
		}
	}
	return f.Store.Claim(ctx, req)
}

func (f *finishedClaim) Shared() bool { return true }

// TestScanStopsATaskAtASlotHeldElsewhere: a replay that finds its slot
// claimed by another host's run that is still running must end the task's
// replays in this scan, as a lock skip does: that run may yet give its
// claim back (its fire found the task's lock held: a lock skip), and a
// later slot replayed now would then run before it. So must a slot found
// so held when scan reads the task (it is not missed then, but the later
// ones are). A slot found settled by a finished run is done: the later
// slots are replayed as before.
func TestScanStopsATaskAtASlotHeldElsewhere(t *testing.T) {
	t.Parallel()
	held := mustTime(t, "2026-03-01T11:00:00Z")
	tests := map[string]struct {
		ledger func(store.Store) store.Store
		// claimFirst: b claims the slot before scan reads the task, not
		// as this host's replay claims it.
		claimFirst bool
		first      []int // the hours the first scan replays
		wantLeft   int
		wantWarn   string
		wantTotal  []int // the hours the job ran for, in order, after a second scan
	}{
		"held by a running run": {
			ledger:    func(st store.Store) store.Store { return &lostClaim{Store: st, claimAt: held} },
			first:     nil,
			wantLeft:  2,
			wantWarn:  "task job: slot 2026-03-01T11:00:00Z is held by run ",
			wantTotal: []int{11, 12, 13},
		},
		"held by a running run when scan reads the task": {
			ledger:     func(st store.Store) store.Store { return &lostClaim{Store: st} },
			claimFirst: true,
			first:      nil,
			wantLeft:   2,
			wantWarn:   "task job: slot 2026-03-01T11:00:00Z is held by run ",
			wantTotal:  []int{11, 12, 13},
		},
		"settled by a finished run": {
			ledger:    func(st store.Store) store.Store { return &finishedClaim{Store: st, claimAt: held} },
			first:     []int{12, 13},
			wantTotal: []int{12, 13},
		},
	}
	for backend, open := range sharedLedgers {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				st, db := open(t)
				m, job, now := hourlyThreeMissed(t, st, db)
				if tc.claimFirst {
					b, err := st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Slot: held,
						Trigger: store.TriggerReplay, Status: store.StatusRunning, Attempt: 1, StartedAt: now, Host: "b"}})
					if err != nil || !b.Claimed {
						t.Fatalf("host b's claim of 11:00: %+v, %v", b, err)
					}
				}
				rep, err := Scan(context.Background(), tc.ledger(st), m, scanRequest())
				if err != nil {
					t.Fatalf("first scan: %v", err)
				}
				ts := rep.Tasks[0]
				if ts.Replayed != len(tc.first) || ts.Left != tc.wantLeft {
					t.Errorf("first scan: replayed %d, left %d; want %d replayed (%v), %d left",
						ts.Replayed, ts.Left, len(tc.first), tc.first, tc.wantLeft)
				}
				if warn := strings.Join(ts.Warnings, "\n"); (tc.wantWarn == "") != (warn == "") || !strings.Contains(warn, tc.wantWarn) {
					t.Errorf("first scan warned %q, want %q", warn, tc.wantWarn)
				}
				want := strings.Join(append(hours("schedule", 10), hours("replay", tc.first...)...), "|")
				if got := strings.Join(job.runs(t), "|"); got != want {
					t.Errorf("after the first scan the job ran for %v, want %v", got, want)
				}
				if tc.wantLeft > 0 { // b's claim is given back when its scan ends (lostClaim)
					if _, err := Scan(context.Background(), st, m, scanRequest()); err != nil {
						t.Fatalf("second scan: %v", err)
					}
				}
				want = strings.Join(append(hours("schedule", 10), hours("replay", tc.wantTotal...)...), "|")
				if got := strings.Join(job.runs(t), "|"); got != want {
					t.Errorf("the job ran for %v, want %v: oldest first, each slot once", got, want)
				}
			})
		}
	}
}

// hourlyThreeMissed registers hourly (UTC) task "job", running the slotLog
// job, by its fire at 10:00:30, on ledger st (at db), and returns the
// machine at 13:30, the clock it reads: 11:00, 12:00 and 13:00 missed.
func hourlyThreeMissed(t *testing.T, st store.Store, db string) (Machine, slotLog, time.Time) {
	t.Helper()
	job := slotLog{dir: t.TempDir()}
	now := mustTime(t, "2026-03-01T10:00:30Z")
	m := testMachine(db, now)
	m.LockDir = filepath.Join(t.TempDir(), "locks")
	m.Now = func() time.Time { return now }
	req := RunRequest{Task: "job", Schedule: mustSchedule(t, "0 * * * *", "UTC"), TZ: "UTC", Replay: "all",
		Tolerance: 5 * time.Minute, KillAfter: time.Second, Argv: job.argv(), Dir: job.dir}
	if res, err := Run(context.Background(), st, nil, m, req); err != nil || res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d, %v", res.ExitCode, err)
	}
	now = mustTime(t, "2026-03-01T13:30:00Z")
	return m, job, now
}
