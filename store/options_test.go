package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestTaskOptions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		task := store.Task{Name: "backup", Schedule: "0 3 * * *", Replay: "all", Argv: []string{"/bin/backup"}, Source: "run",
			RetryDelay: time.Minute, RegisteredAt: t0, UpdatedAt: t0,
			Timeout: 90*time.Minute + 250*time.Millisecond, KillAfter: 30 * time.Second, NoCapture: true,
			NotifyCmd: `mail -s "backup: $CATCHUP_STATUS" root`, SettledThrough: t0.Add(-time.Second)}
		upsert(t, s, task)
		get := func() store.Task {
			t.Helper()
			got, err := s.Task(ctx, "backup")
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := get(); !reflect.DeepEqual(got, task) {
			t.Errorf("Task\n got %#v\nwant %#v", got, task)
		}
		sums, err := s.Tasks(ctx)
		if err != nil || len(sums) != 1 || !reflect.DeepEqual(sums[0].Task, task) {
			t.Errorf("Tasks = %+v, %v; want %#v", sums, err, task)
		}

		// A new registration replaces the options, all of them.
		next := task
		next.Timeout, next.KillAfter, next.NoCapture, next.NotifyCmd = 0, 0, false, ""
		next.UpdatedAt = t0.Add(time.Hour)
		claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}, Register: &next})
		if got := get(); !reflect.DeepEqual(got, next) {
			t.Errorf("after re-registration\n got %#v\nwant %#v", got, next)
		}

		// A crontab task keeps its options when `run` registers it.
		cron := task
		cron.Name, cron.Source = "cron-7", "crontab:/etc/crontab:7"
		upsert(t, s, cron)
		byRun := cron
		byRun.Source, byRun.Timeout, byRun.NoCapture, byRun.NotifyCmd = "run", time.Second, false, "other"
		upsert(t, s, byRun)
		if got, err := s.Task(ctx, "cron-7"); err != nil || !reflect.DeepEqual(got, cron) {
			t.Errorf("crontab task after a run registration = %#v, %v; want %#v", got, err, cron)
		}
	})
}

// A SQLite ledger copied into a shared one, as `catchup migrate` does,
// keeps the options, the watermark, progress and checkpoints.
func TestImportCarriesSchema2(t *testing.T) {
	ctx := t.Context()
	src, _ := newLedger(t)
	dst := openPG(t, pgLedger(t))
	task := store.Task{Name: "backup", Schedule: "@hourly", Replay: "all", Argv: []string{"/bin/backup"}, Source: "run",
		RetryDelay: time.Minute, RegisteredAt: t0, UpdatedAt: t0, Timeout: time.Hour, KillAfter: 5 * time.Second,
		NoCapture: true, NotifyCmd: "notify", SettledThrough: t0.Add(2 * time.Hour)}
	upsert(t, src, task)
	id := mustClaim(t, src, store.Run{Task: "backup", Slot: t0.Add(3 * time.Hour), Trigger: store.TriggerSchedule, StartedAt: t0})
	if err := src.SetProgress(ctx, id, 42, "half way"); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Interrupt(ctx, id, t0.Add(time.Minute), "gone"); err != nil {
		t.Fatal(err)
	}
	mustClaim(t, src, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
	runs, err := src.ExportRuns(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || progressOf(runs[0]) != 42 || runs[0].Checkpoint != "half way" || runs[1].Progress != nil {
		t.Fatalf("ExportRuns = %+v", runs)
	}
	if _, err := dst.Import(ctx, "old-host", []store.Task{task}, runs); err != nil {
		t.Fatal(err)
	}
	got, err := dst.Task(ctx, "backup")
	if err != nil || !reflect.DeepEqual(got, task) {
		t.Errorf("imported task = %#v, %v; want %#v", got, err, task)
	}
	imported, err := dst.ExportRuns(ctx, 0, 0)
	if err != nil || len(imported) != 2 {
		t.Fatalf("imported runs = %+v, %v", imported, err)
	}
	for i, want := range runs {
		want.ID = imported[i].ID
		if !sameRun(imported[i], want) {
			t.Errorf("imported run\n got %+v\nwant %+v", imported[i], want)
		}
	}
	if note, ok, err := dst.LastCheckpoint(ctx, "backup", t0.Add(3*time.Hour)); err != nil || !ok || note != "half way" {
		t.Errorf("LastCheckpoint after import = %q, %v, %v", note, ok, err)
	}
}
