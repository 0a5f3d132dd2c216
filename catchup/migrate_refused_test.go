package catchup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// startsMeanwhile is a host's ledger where a run starts while migrate
// copies it: just before migrate reads its second page of runs, after the
// in-progress check passed.
// With fail set, that read fails instead, once, after the run started.
type startsMeanwhile struct {
	*sqlite.Ledger
	start   store.Run
	started int64 // the started run's id, once it started
	fail    bool
}

func (s *startsMeanwhile) ExportRuns(ctx context.Context, afterID int64, limit int) ([]store.Run, error) {
	if afterID > 0 && s.started == 0 {
		id, err := s.Ledger.AddRun(ctx, s.start)
		if err != nil {
			return nil, err
		}
		s.started = id
		if s.fail {
			return nil, errors.New("read ledger: disk I/O error")
		}
	}
	return s.Ledger.ExportRuns(ctx, afterID, limit)
}

// TestMigrateRefusedLeavesNoSlotMissed: a migration refused by a run that
// started after its in-progress check, in a later page of runs, must not
// leave the shared ledger with the host's task and only part of its runs.
// Before, the task went over with the first page: the fleet's ls --missed
// and scan there took the slots whose runs were in the pages not copied
// for missed, and a scan replayed slots that had run on the host. A retry
// once the run ended copies each run once. A migration that fails
// halfway (here: the host's ledger unreadable) leaves it alike.
func TestMigrateRefusedLeavesNoSlotMissed(t *testing.T) {
	// Serial: it sets migratePage, package-wide.
	cases := map[string]struct{ fail bool }{
		"refused by a run that started meanwhile": {},
		"failed reading a later page":             {fail: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { migrateHalfway(t, c.fail) })
	}
}

func migrateHalfway(t *testing.T, fail bool) {
	defer func(n int) { migratePage = n }(migratePage)
	migratePage = 2
	ctx := context.Background()
	dst := testPostgres(t)
	led, path := testLedger(t)
	reg := mustTime(t, "2026-03-01T00:00:00Z")
	if err := led.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", Replay: "all",
		Argv: []string{"true"}, Source: "run", RegisteredAt: reg, UpdatedAt: reg, SettledThrough: reg.Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // slots 00:00 to 04:00 succeeded: pages {1,2} {3,4} {5,...}
		slot := reg.Add(time.Duration(i) * time.Hour)
		if _, err := led.AddRun(ctx, store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule,
			Status: store.StatusSucceeded, Attempt: 1, StartedAt: slot, EndedAt: slot.Add(time.Minute), Host: "testhost"}); err != nil {
			t.Fatal(err)
		}
	}
	last := reg.Add(5 * time.Hour)
	src := &startsMeanwhile{Ledger: led, start: store.Run{Task: "job", Slot: last, Trigger: store.TriggerSchedule,
		Status: store.StatusRunning, Attempt: 1, StartedAt: last, Host: "testhost", PID: os.Getpid(), BootID: "boot-1"}, fail: fail}
	now := last.Add(30 * time.Minute)
	m := testMachine(path, now)
	mg := Migration{From: src, FromPath: path, To: dst, ToWhere: "test"}
	if _, err := Migrate(ctx, m, mg); err == nil {
		t.Fatal("Migrate went through a run in progress (or an unreadable page); want it refused")
	}
	// Another host of the fleet reads the shared ledger.
	fleet := testMachine(filepath.Join(t.TempDir(), "other.db"), now)
	fleet.Host = "otherhost"
	list, err := List(ctx, dst, fleet, ListRequest{Rule: MissedRule{Tolerance: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range list {
		if len(ts.Missed) > 0 {
			t.Errorf("after the migration stopped halfway the shared ledger takes %s's slots %v for missed; they ran (or run) on the host",
				ts.Task.Name, ts.Missed)
		}
	}

	// The run ends; migrate again, twice: every run is there once.
	code := 0
	if err := led.Finish(ctx, src.started, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code,
		EndedAt: last.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		got, err := Migrate(ctx, m, mg)
		if err != nil || got.Tasks != 1 || got.Runs != 6 || (i == 1 && got.Imported != 0) {
			t.Fatalf("Migrate #%d after the refusal = %+v, %v; want 1 task and 6 runs (none imported the second time)", i+1, got, err)
		}
	}
	runs, err := dst.ExportRuns(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	slots := map[time.Time]int{}
	for _, r := range runs {
		slots[r.Slot]++
	}
	if len(runs) != 6 || len(slots) != 6 {
		t.Errorf("shared ledger holds %d runs over %d slots; want the host's 6 runs, one per slot: %v", len(runs), len(slots), slots)
	}
	list, err = List(ctx, dst, fleet, ListRequest{Rule: MissedRule{Tolerance: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || len(list[0].Missed) > 0 {
		t.Errorf("after the retry the shared ledger lists %d tasks (want 1), missed %v (want none)", len(list), list)
	}
}
