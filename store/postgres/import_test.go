package postgres_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A host's SQLite history copied into the shared ledger, page by page, as
// `catchup migrate` does: twice, the second time importing nothing.
func TestPostgresImport(t *testing.T) {
	ctx := t.Context()
	dst := openPG(t, pgLedger(t))
	src := sqliteLedger(t)

	backup := store.Task{Name: "backup", Schedule: "0 * * * *", Argv: []string{"/bin/backup", "--all"}, Source: "run",
		Replay: "all", RetryDelay: time.Minute, RegisteredAt: t0.Add(-48 * time.Hour), UpdatedAt: t0}
	rotate := store.Task{Name: "rotate", Schedule: "@daily", Argv: []string{"/bin/rotate"}, Replay: "latest",
		RegisteredAt: t0.Add(-time.Hour), UpdatedAt: t0}
	for _, task := range []store.Task{backup, rotate} {
		if err := src.UpsertTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	// The shared ledger already knows backup, registered later by another
	// host but with a newer definition.
	shared := backup
	shared.Argv, shared.RegisteredAt, shared.UpdatedAt = []string{"/bin/backup", "--v2"}, t0, t0.Add(24*time.Hour)
	if err := dst.UpsertTask(ctx, shared); err != nil {
		t.Fatal(err)
	}

	slot := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	run := func(task string, h int) store.Run {
		return store.Run{Task: task, Slot: slot(h), Trigger: store.TriggerSchedule, StartedAt: slot(h).Add(time.Second),
			Host: "old-host", PID: 100 + h, BootID: "boot-old"}
	}
	done := func(id int64, status string, out string) {
		t.Helper()
		err := src.Finish(ctx, id, store.Outcome{Status: status, ExitCode: intp(0), EndedAt: t0.Add(99 * time.Hour),
			StdoutTail: []byte(out), StderrTail: []byte{0, 1, 2}})
		if err != nil {
			t.Fatal(err)
		}
	}
	succeeded := mustClaim(t, src, run("backup", 0))
	done(succeeded, store.StatusSucceeded, "ok\n")
	done(mustClaim(t, src, run("backup", 1)), store.StatusFailed, "failed\n")
	done(mustClaim(t, src, run("backup", 2)), store.StatusFailed, "failed\n")
	retried := mustClaim(t, src, run("backup", 2))
	done(retried, store.StatusSucceeded, "ok on retry\n")
	running := mustClaim(t, src, run("rotate", 3))
	mustClaim(t, src, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0, Host: "old-host"})
	if _, err := src.AddRun(ctx, store.Run{Task: "backup", Slot: slot(4), Trigger: store.TriggerSchedule,
		Status: store.StatusSkipped, StartedAt: slot(4), EndedAt: slot(4), Error: "previous run still running"}); err != nil {
		t.Fatal(err)
	}
	srcSums, err := src.Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []store.Task
	for _, s := range srcSums {
		tasks = append(tasks, s.Task)
	}

	migrate := func() int {
		t.Helper()
		total := 0
		for after := int64(0); ; {
			page, err := src.ExportRuns(ctx, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				return total
			}
			n, err := dst.Import(ctx, "host old-host:/var/lib/catchup/ledger.db", tasks, page)
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			total += n
			after = page[len(page)-1].ID
		}
	}
	srcRuns, err := src.ExportRuns(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if n := migrate(); n != len(srcRuns) {
		t.Errorf("first import: %d runs, want %d", n, len(srcRuns))
	}
	if n := migrate(); n != 0 {
		t.Errorf("second import: %d runs, want 0", n)
	}
	dstRuns, err := dst.ExportRuns(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(dstRuns) != len(srcRuns) {
		t.Fatalf("shared ledger holds %d runs, want %d", len(dstRuns), len(srcRuns))
	}
	byOld := map[int64]store.Run{}
	for i, got := range dstRuns {
		want := srcRuns[i] // imported in order
		byOld[want.ID] = got
		want.ID = got.ID
		if !sameRun(got, want) {
			t.Errorf("imported run\n got %+v\nwant %+v", got, want)
		}
	}

	// Tasks: the registration moved back, the newer definition stayed.
	got, err := dst.Task(ctx, "backup")
	if err != nil {
		t.Fatal(err)
	}
	want := shared
	want.RegisteredAt = backup.RegisteredAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backup after import\n got %#v\nwant %#v", got, want)
	}
	if got, err := dst.Task(ctx, "rotate"); err != nil || !reflect.DeepEqual(got, rotate) {
		t.Errorf("rotate after import = %#v, %v; want %#v", got, err, rotate)
	}

	// Slots: what succeeded (or runs) there is held here.
	for _, tc := range []struct {
		task    string
		h       int
		claimed bool
		holder  int64 // source id
	}{
		{"backup", 0, false, succeeded},
		{"backup", 1, true, 0},
		{"backup", 2, false, retried},
		{"rotate", 3, false, running},
		{"backup", 4, true, 0},
	} {
		r := run(tc.task, tc.h)
		r.Host = "new-host"
		res := claim(t, dst, store.ClaimRequest{Run: r})
		if res.Claimed != tc.claimed || !tc.claimed && (res.Run.ID != byOld[tc.holder].ID || res.Run.Host != "old-host") {
			t.Errorf("claim %s slot %d after import = %+v, want claimed %v (holder %d)", tc.task, tc.h, res, tc.claimed, byOld[tc.holder].ID)
		}
	}
	// The imported running run stays running, for catchup to judge.
	runs, err := dst.Running(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range runs {
		found = found || r.ID == byOld[running].ID
	}
	if !found {
		t.Errorf("imported running run %d not in Running %v", byOld[running].ID, ids(runs))
	}

	if _, err := dst.Import(context.Background(), "", nil, srcRuns); err == nil {
		t.Error("Import with no origin succeeded")
	}
	if _, err := dst.Import(ctx, "x", nil, nil); err != nil {
		t.Errorf("empty Import: %v", err)
	}
}

// A SQLite ledger copied into a shared one, as `catchup migrate` does,
// keeps the options, the watermark, progress and checkpoints.
func TestImportCarriesSchema2(t *testing.T) {
	ctx := t.Context()
	src := sqliteLedger(t)
	dst := openPG(t, pgLedger(t))
	task := store.Task{Name: "backup", Schedule: "@hourly", Replay: "all", Argv: []string{"/bin/backup"}, Source: "run",
		RetryDelay: time.Minute, RegisteredAt: t0, UpdatedAt: t0, Timeout: time.Hour, KillAfter: 5 * time.Second,
		NoCapture: true, NotifyCmd: "notify", SettledThrough: t0.Add(2 * time.Hour)}
	if err := src.UpsertTask(ctx, task); err != nil {
		t.Fatal(err)
	}
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
	if len(runs) != 2 || runs[0].Progress == nil || *runs[0].Progress != 42 || runs[0].Checkpoint != "half way" || runs[1].Progress != nil {
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

// A retired or paused task stays so in the ledger it is migrated to.
func TestImportCarriesLifecycle(t *testing.T) {
	ctx := t.Context()
	dst := openPG(t, pgLedger(t))
	tests := map[string]store.Task{
		"retired": {Name: "retired", Schedule: "@hourly", Replay: "all", Argv: []string{}, Source: "run",
			RegisteredAt: t0, UpdatedAt: t0, RetiredAt: t0.Add(time.Hour)},
		"paused": {Name: "paused", Schedule: "@hourly", Replay: "all", Argv: []string{}, Source: "run",
			RegisteredAt: t0, UpdatedAt: t0, PausedAt: t0.Add(time.Hour), PausedUntil: t0.Add(2 * time.Hour)},
	}
	for name, task := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := dst.Import(ctx, "old-host", []store.Task{task}, nil); err != nil {
				t.Fatal(err)
			}
			got, err := dst.Task(ctx, task.Name)
			if err != nil || !reflect.DeepEqual(got, task) {
				t.Errorf("imported task = %#v, %v; want %#v", got, err, task)
			}
		})
	}
}
