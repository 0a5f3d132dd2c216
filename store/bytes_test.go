package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestInvalidUTF8RoundTrip: arguments, directories, host names and
// commands are bytes, not text. A task and a run whose fields hold invalid
// UTF-8 (and the marker the encoding uses, as plain text) come back byte
// for byte on both backends, and the run can be finished and found.
func TestInvalidUTF8RoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]string{
			"invalid byte":       "a\xffb",
			"latin-1 name":       "caf\xe9",
			"truncated sequence": "\xe2\x82",
			"marker as text":     "\uFFFFb64:aGk=",
			"valid unicode":      "ünïcødé",
		}
		for name, odd := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				task := store.Task{
					Name: "odd", Schedule: "0 3 * * *", TZ: "UTC", Replay: "all",
					Argv: []string{"/bin/echo", odd, ""}, Dir: "/srv/" + odd, Shell: "echo " + odd,
					Source: "crontab:/etc/cron.d/" + odd + ":1", NotifyCmd: "logger " + odd,
					RegisteredAt: t0, UpdatedAt: t0,
				}
				if err := s.UpsertTask(t.Context(), task); err != nil {
					t.Fatalf("UpsertTask: %v", err)
				}
				got, err := s.Task(t.Context(), "odd")
				if err != nil {
					t.Fatalf("Task: %v", err)
				}
				if !reflect.DeepEqual(got, task) {
					t.Errorf("Task\n got %q %q %q %q %q\nwant %q %q %q %q %q", got.Argv, got.Dir, got.Shell, got.Source, got.NotifyCmd,
						task.Argv, task.Dir, task.Shell, task.Source, task.NotifyCmd)
				}
				r := store.Run{Task: "odd", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0,
					Host: "host-" + odd, PID: 7, BootID: "boot"}
				claim, err := s.Claim(t.Context(), store.ClaimRequest{Run: r})
				if err != nil || !claim.Claimed {
					t.Fatalf("Claim: %v %+v", err, claim)
				}
				if err := s.SetProgress(t.Context(), claim.Run.ID, 50, "note "+odd); err != nil {
					t.Fatalf("SetProgress: %v", err)
				}
				running, err := s.Running(t.Context())
				if err != nil || len(running) != 1 || running[0].Host != r.Host || running[0].Checkpoint != "note "+odd {
					t.Fatalf("Running = %+v, %v; want host %q", running, err, r.Host)
				}
				out := store.Outcome{Status: store.StatusFailed, ExitCode: new(int), EndedAt: t0.Add(time.Second),
					Error: "cannot chdir to /srv/" + odd}
				if err := s.Finish(t.Context(), claim.Run.ID, out); err != nil {
					t.Fatalf("Finish: %v", err)
				}
				got2, err := s.Run(t.Context(), claim.Run.ID)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got2.Host != r.Host || got2.Error != out.Error || got2.Checkpoint != "note "+odd {
					t.Errorf("Run: host %q error %q checkpoint %q; want %q %q %q", got2.Host, got2.Error, got2.Checkpoint,
						r.Host, out.Error, "note "+odd)
				}
			})
		}
	})
}
