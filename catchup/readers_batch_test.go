package catchup

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// perTaskReads is a ledger that counts the reads of one task (or host)
// each: a reader that makes them makes a round trip per task on a shared
// ledger.
type perTaskReads struct {
	store.Store
	n     atomic.Int64
	fires atomic.Int64 // reads of first fires (FirstFires): one at most
}

func (p *perTaskReads) FirstFires(ctx context.Context, tasks, hosts []string) (map[string]map[string]time.Time, error) {
	p.fires.Add(1)
	return p.Store.FirstFires(ctx, tasks, hosts)
}

func (p *perTaskReads) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	p.n.Add(1)
	return p.Store.SlotRuns(ctx, task, from, to, grace)
}

func (p *perTaskReads) LatestSlot(ctx context.Context, task string) (time.Time, error) {
	p.n.Add(1)
	return p.Store.LatestSlot(ctx, task)
}

func (p *perTaskReads) LatestListedSlot(ctx context.Context, task string) (time.Time, error) {
	p.n.Add(1)
	return p.Store.LatestListedSlot(ctx, task)
}

func (p *perTaskReads) LatestRan(ctx context.Context, task string) (*store.Run, error) {
	p.n.Add(1)
	return p.Store.LatestRan(ctx, task)
}

func (p *perTaskReads) LastFire(ctx context.Context, task string) (time.Time, error) {
	p.n.Add(1)
	return p.Store.LastFire(ctx, task)
}

func (p *perTaskReads) StatusCount(ctx context.Context, task, status string) (int64, error) {
	p.n.Add(1)
	return p.Store.StatusCount(ctx, task, status)
}

func (p *perTaskReads) Boots(ctx context.Context, host string) ([]store.Boot, error) {
	p.n.Add(1)
	return p.Store.Boots(ctx, host)
}

// TestReadersReadEveryTaskAtOnce: ls (with and without its expired
// counts), metrics (every count), calendar, scan --dry-run and prune's
// look at the missed slots read the ledger in reads of every task at once
// (store.BatchReads), none of one task's, over tasks that take each of
// their paths: missed slots whose causes need another host's boots, a
// latest run that does not hold the latest slot, a pause that is over, a
// run --cron task whose last fire is read, expired records; and they read
// what the per-task reads would.
func TestReadersReadEveryTaskAtOnce(t *testing.T) {
	t.Parallel()
	st, db := testLedger(t)
	ctx := context.Background()
	reg := mustTime(t, "2026-11-10T00:00:00Z")
	now := mustTime(t, "2026-11-12T04:00:00Z")
	for i := range 4 {
		if err := st.UpsertTask(ctx, store.Task{Name: fmt.Sprintf("job-%d", i), Schedule: "0 * * * *", TZ: "UTC",
			Source: "run", RegisteredAt: reg, SettledThrough: now.Add(-3 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(r store.Run) {
		t.Helper()
		r.Attempt, r.BootID = 1, "boot-1"
		if r.Host == "" {
			r.Host = "testhost"
		}
		r.EndedAt = r.StartedAt.Add(time.Second)
		if _, err := st.AddRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	slot := func(h int) time.Time { return now.Add(time.Duration(h) * time.Hour) }
	locked := exitLocked
	// job-0: its 02:00 slot's fire on another host was lock-skipped, its 03:00 slot not fired: missed.
	add(store.Run{Task: "job-0", Slot: slot(-3), Trigger: store.TriggerSchedule, Status: store.StatusSucceeded, StartedAt: slot(-3)})
	add(store.Run{Task: "job-0", Slot: slot(-2), Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
		ExitCode: &locked, Host: "other", StartedAt: slot(-2)})
	// job-1: a backfill of an older slot after the latest: its latest run does not hold its latest slot.
	add(store.Run{Task: "job-1", Slot: slot(-1), Trigger: store.TriggerSchedule, Status: store.StatusSucceeded, StartedAt: slot(-1)})
	add(store.Run{Task: "job-1", Slot: slot(-40), Trigger: store.TriggerBackfill, Status: store.StatusSucceeded, StartedAt: slot(-1)})
	// job-2: paused until an hour ago; its latest record a fire the pause kept from running.
	add(store.Run{Task: "job-2", Slot: slot(-3), Trigger: store.TriggerSchedule, Status: store.StatusSucceeded, StartedAt: slot(-3)})
	add(store.Run{Task: "job-2", Slot: slot(-2), Trigger: store.TriggerSchedule, Status: store.StatusPaused, StartedAt: slot(-2)})
	if err := st.SetPause(ctx, "job-2", slot(-3), slot(-1)); err != nil {
		t.Fatal(err)
	}
	// job-3: expired records.
	add(store.Run{Task: "job-3", Slot: slot(-50), Trigger: store.TriggerReplay, Status: store.StatusExpired,
		Reason: store.ReasonMaxAge, StartedAt: slot(-3)})
	for _, b := range []store.Boot{{Host: "other", ID: "b", FirstSeen: slot(-30), LastSeen: slot(-1)},
		{Host: "testhost", ID: "boot-1", FirstSeen: slot(-30), LastSeen: slot(-1)}} {
		if err := st.SeeBoot(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	m := testMachine(db, now)
	rule := MissedRule{Tolerance: 5 * time.Minute}
	p := &perTaskReads{Store: st}
	readers := map[string]func() error{
		"ls":         func() error { _, err := List(ctx, p, m, ListRequest{Rule: rule}); return err },
		"ls -o json": func() error { _, err := List(ctx, p, m, ListRequest{Rule: rule, Counts: CountsExpired}); return err },
		"metrics":    func() error { _, err := Metrics(ctx, p, m, rule); return err },
		"calendar": func() error {
			return Calendar(ctx, p, m, CalendarRequest{From: reg, To: now, Rule: rule}, func(CalendarRow) error { return nil })
		},
		"scan --dry-run": func() error {
			_, err := Scan(ctx, p, m, ScanRequest{MissedRule: rule, DryRun: true})
			return err
		},
		"prune --dry-run": func() error {
			_, err := Prune(ctx, p, m, PruneRequest{OlderThan: 60 * 24 * time.Hour, DryRun: true})
			return err
		},
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			p.n.Store(0)
			p.fires.Store(0)
			if err := read(); err != nil {
				t.Fatal(err)
			}
			if n := p.n.Load(); n != 0 {
				t.Errorf("%d reads of one task's records, want none", n)
			}
			if n := p.fires.Load(); n > 1 {
				t.Errorf("%d reads of first fires, want one at most (every task's at once)", n)
			}
		})
	}
	// What they read: as the per-task reads say.
	list, err := List(ctx, p, m, ListRequest{Rule: rule, Counts: CountsExpired})
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range list {
		want := perTaskStatus(t, st, ts.Task.Name)
		if !ts.LastSlot.Equal(want.LastSlot) || (ts.Latest == nil) != (want.Latest == nil) ||
			ts.Latest != nil && ts.Latest.ID != want.Latest.ID || ts.Counts[store.StatusExpired] != want.Counts[store.StatusExpired] {
			t.Errorf("task %s: last slot %v, latest %+v, %d expired; the per-task reads say %v, %+v, %d",
				ts.Task.Name, ts.LastSlot, ts.Latest, ts.Counts[store.StatusExpired], want.LastSlot, want.Latest, want.Counts[store.StatusExpired])
		}
	}
	// From the boots of both hosts: the lock skip's, and this host's up
	// while nothing fired the next slot.
	if got := list[0].Causes; len(got) != 2 || got[0] != CauseLockBusy || got[1] != CauseNotFired {
		t.Errorf("job-0's causes %v, want [%s %s]", got, CauseLockBusy, CauseNotFired)
	}
}

// perTaskStatus is what ls showed of task from its per-task reads
// (LatestSlot, LatestListedSlot, LatestRan, StatusCount) before they were
// read for every task at once: its last slot, latest run and expired
// count, for a task not paused now.
func perTaskStatus(t *testing.T, st store.Store, task string) TaskStatus {
	t.Helper()
	ctx := context.Background()
	all, err := st.Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ts TaskStatus
	for _, s := range all {
		if s.Task.Name == task {
			ts.Latest = s.Latest
		}
	}
	held, err1 := st.LatestSlot(ctx, task)
	listed, err2 := st.LatestListedSlot(ctx, task)
	expired, err3 := st.StatusCount(ctx, task, store.StatusExpired)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	ts.LastSlot, ts.Counts = listed, map[string]int64{store.StatusExpired: expired}
	if ts.Latest != nil && ts.Latest.Slot.Equal(held) {
		ts.LastSlot = held
	}
	if ts.Latest != nil && ts.Latest.Status == store.StatusPaused {
		r, err := st.LatestRan(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		ts.Latest = r
		if r == nil {
			ts.LastSlot = time.Time{}
		} else if !r.Slot.IsZero() {
			ts.LastSlot = r.Slot
		}
	}
	return ts
}
