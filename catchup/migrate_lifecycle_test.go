package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestMigrateKeepsASharedTasksOwnLifecycle: a host's forget or pause of a
// task goes over with migrate only where no other host runs the task:
// carried onto a task the shared ledger ran on, it retired or paused it
// for the whole fleet (found by review: the shared task's two missed slots
// vanished from ls --missed and scan, its registration moved back; a pause
// that had ended turned another host's missed slots into paused ones).
// Migrate says what it did not carry.
func TestMigrateKeepsASharedTasksOwnLifecycle(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		pause, sharedRuns bool
		wantCarried       bool
	}{
		"forgotten here, run there": {sharedRuns: true},
		"paused here, run there":    {pause: true, sharedRuns: true},
		"forgotten here, new there": {wantCarried: true},
		"paused here, new there":    {pause: true, wantCarried: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dst := testPostgres(t)
			src, path := testLedger(t)
			def := store.Task{Name: "x", Schedule: "0 * * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"}, Source: "run"}
			if c.sharedRuns {
				reg := mustTime(t, "2026-03-01T09:00:00Z")
				d := def
				d.RegisteredAt, d.UpdatedAt = reg, reg
				if err := dst.UpsertTask(ctx, d); err != nil {
					t.Fatal(err)
				}
				slot := mustTime(t, "2026-03-01T10:00:00Z")
				if _, err := dst.AddRun(ctx, store.Run{Task: "x", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusSucceeded,
					Attempt: 1, StartedAt: slot, EndedAt: slot, Host: "hostB"}); err != nil {
					t.Fatal(err)
				}
			}
			reg := mustTime(t, "2026-03-01T08:00:00Z")
			def.RegisteredAt, def.UpdatedAt = reg, reg
			if err := src.UpsertTask(ctx, def); err != nil {
				t.Fatal(err)
			}
			hostA := testMachine(path, mustTime(t, "2026-03-01T08:30:00Z"))
			var err error
			if c.pause {
				_, err = Pause(ctx, src, hostA, PauseRequest{Task: "x", Until: mustTime(t, "2026-03-01T12:30:00Z")})
			} else {
				_, err = Forget(ctx, src, hostA, ForgetRequest{Task: "x"})
			}
			if err != nil {
				t.Fatal(err)
			}
			m := testMachine(path, mustTime(t, "2026-03-01T12:45:00Z"))
			var said strings.Builder
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			if _, err := Migrate(ctx, m, Migration{From: src, FromPath: path, To: dst, ToWhere: "the shared ledger"}); err != nil {
				t.Fatal(err)
			}
			got, err := dst.Task(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			carried := !got.RetiredAt.IsZero() || !got.PausedAt.IsZero()
			if carried != c.wantCarried {
				t.Errorf("shared task retired at %v, paused at %v; want carried %v", got.RetiredAt, got.PausedAt, c.wantCarried)
			}
			if notice := said.String(); c.wantCarried == strings.Contains(notice, "not carried") {
				t.Errorf("migrate said %q; want a line saying what it did not carry: %v", notice, !c.wantCarried)
			}
		})
	}
}
