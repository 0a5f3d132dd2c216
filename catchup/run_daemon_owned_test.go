package catchup

import (
	"time"

	"errors"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestRunCronOfADaemonTaskIsRefused: a `catchup run --cron` of a task a
// daemon's crontab line registered (live) would take it over: its
// registration re-written as run's, with run's command and schedule, flip-
// flopping with the daemon's at each of its reloads, and scans replaying
// the daemon's slots through the run's line. The fire is refused in one
// line naming the line and the fix, and runs nothing; the registration
// stays the daemon's. A run by hand of it (no --cron) is no takeover; a
// task the daemon no longer has (retired) is the run's to register.
func TestRunCronOfADaemonTaskIsRefused(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		cron, retire bool
		wantRefused  bool
	}{
		"run --cron":               {cron: true, wantRefused: true},
		"run by hand":              {cron: false},
		"run --cron, task retired": {cron: true, retire: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			t0 := mustTime(t, "2026-11-16T12:00:00Z")
			def := store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"}, Source: "daemon:/etc/catchup/crontab:3"}
			if _, _, err := RegisterDaemonTask(t.Context(), st, testMachine(db, t0), def, false, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if c.retire {
				if _, err := Forget(t.Context(), st, testMachine(db, t0), ForgetRequest{Task: "job"}); err != nil {
					t.Fatal(err)
				}
			}
			req := RunRequest{Task: "job", Argv: []string{"sh", "-c", "echo ran"}, Replay: "all"}
			if c.cron {
				req.Schedule, req.TZ = mustSchedule(t, "*/5 * * * *", "UTC"), "UTC"
			}
			res, err := Run(t.Context(), st, nil, testMachine(db, mustTime(t, "2026-11-16T13:05:01Z")), req)
			got, gerr := st.Task(t.Context(), "job")
			if gerr != nil {
				t.Fatal(gerr)
			}
			if !c.wantRefused {
				if err != nil || !res.Ran {
					t.Fatalf("Run = %+v, %v; want it run", res, err)
				}
				return
			}
			if err == nil || res.Ran || res.ExitCode != ExitInternal {
				t.Fatalf("Run = ran %v, exit %d, %v; want refused, exit %d, nothing run", res.Ran, res.ExitCode, err, ExitInternal)
			}
			for _, want := range []string{"job", "catchup daemon", "/etc/catchup/crontab:3", "--task"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "\n") || errors.Unwrap(err) != nil && strings.Contains(errors.Unwrap(err).Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			// The daemon's registration names its host (daemonSourceOn).
			if want := daemonSourceOn(def.Source, testMachine(db, t0).Host, testMachine(db, t0).PID); got.Source != want || got.Schedule != def.Schedule {
				t.Errorf("registration now %q %q; want the daemon's %q %q kept", got.Source, got.Schedule, want, def.Schedule)
			}
		})
	}
}
