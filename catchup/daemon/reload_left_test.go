package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// TestReloadRecordsWhatTheOldLineLeft: a reload that changes a line's
// schedule, or removes the line, leaves the slots the old line missed
// (here 10:02, whose fire met the lock of 10:01's job, still running)
// with no fire and no replay to come. They are recorded expired, with the
// reason, and the line's --notify-cmd (written with a secret, which the
// ledger keeps masked) alerts for them: before, they vanished from every
// reader (the new registration's watermark passed them), logged as a
// change only. They are recorded once the old line's fires and replays
// have ended, not beside them (a slot would get an expired record and a
// run), and the alert runs off the reload's path: a reload while it runs
// is not held up.
func TestReloadRecordsWhatTheOldLineLeft(t *testing.T) {
	cases := map[string]struct {
		change func(t *testing.T, task Task, reg func(Task) Task) []Task
		code   string
	}{
		"schedule changed": {code: store.ReasonScheduleChanged, change: func(t *testing.T, task Task, reg func(Task) Task) []Task {
			task.Def.Schedule = "*/5 * * * *"
			var err error
			if task.Sched, err = schedule.Parse(task.Def.Schedule, time.UTC); err != nil {
				t.Fatal(err)
			}
			return []Task{reg(task)}
		}},
		"line removed": {code: store.ReasonRetired, change: func(*testing.T, Task, func(Task) Task) []Task { return nil }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
			f := newFireFixture(t, "tick", "all", started.Add(-time.Minute)) // 10:00 missed: the start's scan replays it
			var c clock
			c.set(started)
			m := f.d.cfg.Machine
			m.Now = c.now
			file := func(name string) string { return filepath.Join(f.dir, name) }
			task := f.task
			task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT" >> fires.log; [ "$CATCHUP_SLOT" = 2026-03-01T10:00:00Z ] || while [ ! -e go ]; do sleep 0.02; done`}
			task.Def.Argv = task.Req.Argv
			task.Req.NotifyCmd = `[ -z "$CATCHUP_EXPIRED_SLOTS" ] && exit 0; echo "$CATCHUP_STATUS $CATCHUP_EXPIRED_SLOTS" >> ` + file("alerts") +
				`; : --password=hunter2; while [ ! -e ` + file("alert-go") + ` ]; do sleep 0.02; done`
			task.Def.NotifyCmd = task.Req.NotifyCmd
			reg := func(task Task) Task {
				var err error
				if task.Def, task.Replaced, err = catchup.RegisterDaemonTask(ctx, f.st, m, task.Def, false); err != nil {
					t.Fatal(err)
				}
				return task
			}
			task = reg(task)
			logs := &safeBuffer{b: &bytes.Buffer{}}
			var reloaded []Task
			load := func(context.Context) ([]Task, error) {
				if reloaded == nil {
					c.set(started.Add(2 * time.Minute)) // 10:02:30
					reloaded = tc.change(t, task, reg)
				}
				return reloaded, nil
			}
			d := New(Config{Store: f.st, Machine: m, Log: slog.New(slog.NewTextHandler(logs, nil)), Grace: time.Second,
				Rule: catchup.MissedRule{FiredAfter: started}, Load: load, Tasks: []Task{task},
				Rescan: time.Hour, Rate: 600}) // a loop reads the test clock again every 50ms (real) at most
			stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
			done := make(chan struct{})
			go func() { d.Run(stop, hup); close(done) }()
			defer func() {
				os.WriteFile(file("go"), nil, 0o644)
				os.WriteFile(file("alert-go"), nil, 0o644)
				select {
				case stop <- syscall.SIGTERM:
				default:
				}
				<-done
			}()
			waitFor := func(what string, ok func() bool) {
				t.Helper()
				deadline := time.Now().Add(30 * time.Second)
				for !ok() {
					if time.Now().After(deadline) {
						t.Fatalf("%s: not within 30s; log:\n%s", what, logs.String())
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			// (The start's scan over first: a fire beside it waits for it.)
			waitFor("the start's scan", func() bool { return strings.Contains(logs.String(), "event=scan task=tick") })
			c.set(started.Add(30 * time.Second)) // 10:01: its job runs until go
			waitFor("10:01's job started", func() bool { return strings.Contains(f.fires(), "10:01:00Z") })
			c.set(started.Add(90 * time.Second)) // 10:02: its fire meets the lock
			waitFor("10:02's fire not run", func() bool {
				return strings.Contains(logs.String(), "event=skip task=tick slot=2026-03-01T10:02:00Z")
			})
			hup <- syscall.SIGHUP
			waitFor("the reload", func() bool { return strings.Count(logs.String(), "crontabs reloaded") == 1 })
			if err := os.WriteFile(file("go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			waitFor("the alert", func() bool { b, _ := os.ReadFile(file("alerts")); return len(b) > 0 })
			hup <- syscall.SIGHUP // while the alert runs
			waitFor("a reload while the alert runs", func() bool { return strings.Count(logs.String(), "crontabs reloaded") == 2 })
			if err := os.WriteFile(file("alert-go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			stop <- syscall.SIGTERM
			<-done

			if b, _ := os.ReadFile(file("alerts")); string(b) != "missed 2026-03-01T10:02:00Z\n" {
				t.Errorf("the alert wrote %q, want %q; log:\n%s", b, "missed 2026-03-01T10:02:00Z\n", logs.String())
			}
			runs, err := f.st.History(ctx, store.HistoryFilter{Task: "tick", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range runs {
				got = append(got, r.Slot.UTC().Format("15:04")+" "+string(r.Status)+" "+r.Reason)
			}
			want := []string{"10:02 expired " + tc.code, "10:02 skipped ", "10:01 succeeded ", "10:00 succeeded "}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("records %q, want %q (10:02's fire skipped, then its slot expired, once); log:\n%s", got, want, logs.String())
			}
			if !strings.Contains(logs.String(), "1 slot missed") {
				t.Errorf("the log does not say what was recorded expired:\n%s", logs.String())
			}
		})
	}
}
