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
