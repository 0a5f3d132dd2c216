package sqlite_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// One scheduled run as catchup records it: a claim, then its outcome. Each
// is a durable (fsynced) commit.
func BenchmarkClaimFinish(b *testing.B) { claimFinish(b, false) }

// BenchmarkClaimFinish as a scheduled fire claims: asking, in the claim,
// whether the task has an older slot's run left running.
func BenchmarkClaimFinishAskOlderRunning(b *testing.B) { claimFinish(b, true) }

func claimFinish(b *testing.B, askOlderRunning bool) {
	s, _ := newLedger(b)
	ctx := b.Context()
	task := store.Task{Name: "backup", Schedule: "* * * * *", Argv: []string{"/bin/backup"}, RegisteredAt: t0, UpdatedAt: t0}
	tail := []byte("some output of the job\n")
	i := 0
	for b.Loop() {
		slot := t0.Add(time.Duration(i) * time.Minute)
		i++
		res, err := s.Claim(ctx, store.ClaimRequest{
			Run:      store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot},
			Register: &task, AskOlderRunning: askOlderRunning,
		})
		if err != nil || !res.Claimed {
			b.Fatalf("Claim = %+v, %v", res, err)
		}
		err = s.Finish(ctx, res.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: new(int),
			EndedAt: slot.Add(time.Second), StdoutTail: tail})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// `catchup ls` on a large ledger: 1000 tasks with 100 runs each.
func BenchmarkTasksQuery(b *testing.B) {
	s, _ := bigLedger(b, func(int) string { return store.StatusSucceeded })
	ctx := b.Context()
	for b.Loop() {
		got, err := s.Tasks(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != benchTasks || got[0].Latest == nil || !got[0].Latest.Slot.Equal(t0.Add((benchRunsPerTask-1)*time.Hour)) {
			b.Fatalf("Tasks returned %d tasks, first %+v", len(got), got[0])
		}
	}
}

// `catchup metrics`' latest failures on the same ledger, a third of its
// runs failed: through the index of failures (schema versions 7 and 10), and
// without it (reading every failed run), for comparison.
func BenchmarkLastFailuresQuery(b *testing.B) {
	for _, dropIndex := range []bool{false, true} {
		name := "index"
		if dropIndex {
			name = "without-index"
		}
		b.Run(name, func(b *testing.B) {
			s, path := bigLedger(b, func(j int) string {
				if j%3 == 0 {
					return store.StatusFailed
				}
				return store.StatusSucceeded
			})
			if dropIndex {
				db := rawDB(b, path)
				if _, err := db.Exec(`DROP INDEX runs_task_failure_end`); err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
			ctx := b.Context()
			want := t0.Add((benchRunsPerTask-1)*time.Hour + time.Second)
			for b.Loop() {
				got, err := s.LastFailures(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != benchTasks || !got["task-0000"].Equal(want) {
					b.Fatalf("LastFailures returned %d tasks, task-0000 %v", len(got), got["task-0000"])
				}
			}
		})
	}
}

const benchTasks, benchRunsPerTask = 1000, 100

// bigLedger is a ledger of benchTasks tasks with benchRunsPerTask hourly
// runs each, run j of each task ending with status(j).
func bigLedger(b *testing.B, status func(j int) string) (store.Store, string) {
	s, path := newLedger(b)
	ctx := b.Context()
	db := rawDB(b, path)
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	insTask, err := tx.PrepareContext(ctx, `INSERT INTO tasks (name, argv, registered_at, updated_at) VALUES (?, '["/bin/true"]', ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	insRun, err := tx.PrepareContext(ctx, `INSERT INTO runs (task, slot, trigger, status, exit_code, started_at, ended_at)
VALUES (?, ?, 'schedule', ?, 0, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	// Interleave tasks so that a task's runs are spread over the table.
	for j := range benchRunsPerTask {
		for i := range benchTasks {
			name := fmt.Sprintf("task-%04d", i)
			at := t0.Add(time.Duration(j) * time.Hour)
			if j == 0 {
				if _, err := insTask.ExecContext(ctx, name, at.UnixMilli(), at.UnixMilli()); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := insRun.ExecContext(ctx, name, at.Unix(), status(j), at.UnixMilli(), at.Add(time.Second).UnixMilli()); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return s, path
}
