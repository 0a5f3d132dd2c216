package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestForgetAfterTheDaemonReadItsLineKeepsItRetired: `catchup daemon`
// registers each line of its crontabs at its start and at each reload
// (RegisterDaemonTask); a `catchup forget` that commits after the daemon
// read the line's task, before that registration, wins: the registration
// refuses, in its transaction, a task retired since (store.UpsertTaskOf),
// as do a changed schedule's records of the old one (expired,
// schedule-changed; its pause's paused), so the task stays retired, its
// schedule, watermark and records as forget left them, and the daemon
// says so once (a warning in its log), with nothing for it to record
// later (Replaced empty). Its next reload registers the line anew, as of
// then, as it does any retired task's line. Before, the registration
// revived the retired task with its old registration and watermark (and,
// edited, the new schedule), and a slot forget had named was recorded
// expired (schedule-changed) after the forget.
func TestForgetAfterTheDaemonReadItsLineKeepsItRetired(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr   string // the line's schedule as the racing reload reads it
		argv   string // its command
		paused bool   // the task is paused (from 12:30) when forget comes
	}{
		"line unchanged":         {expr: "0 * * * *", argv: "true"},
		"command edited":         {expr: "0 * * * *", argv: "false"},
		"schedule edited":        {expr: "30 * * * *", argv: "true"},
		"schedule edited paused": {expr: "30 * * * *", argv: "true", paused: true},
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f := newRunFixture(t, "2026-03-01T10:00:30Z")
				var st store.Store = f.st
				if backend == "postgres" {
					st = testPostgres(t)
				}
				def := store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", Replay: "all",
					Argv: []string{"/bin/sh", "-c", "true"}, Source: "daemon:/c:1"}
				if _, _, err := RegisterDaemonTask(ctx, st, f.m, def, false, f.now); err != nil { // the daemon's start
					t.Fatalf("registering the line: %v", err)
				}
				if tc.paused {
					f.now = mustTime(t, "2026-03-01T12:30:00Z")
					if _, err := Pause(ctx, st, f.m, PauseRequest{Task: "job"}); err != nil {
						t.Fatal(err)
					}
				}
				before, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				// 11:00 to 14:00 recorded expired (or paused) by forget;
				// 15:00, younger than the tolerance, named.
				f.now = mustTime(t, "2026-03-01T15:02:00Z")
				racing := &retireRaceWrite{Store: st, t: t, m: f.m, afterRead: true}
				var notices []string
				m := f.m
				m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
				edited := def
				edited.Schedule, edited.Argv = tc.expr, []string{"/bin/sh", "-c", tc.argv}
				_, replaced, err := RegisterDaemonTask(ctx, racing, m, edited, false, f.now) // the reload
				if err != nil {
					t.Fatalf("racing reload: %v", err)
				}
				if !racing.retired {
					t.Fatal("the forget never came: the reload did not read the task")
				}
				cur, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				if cur.Schedule != before.Schedule || strings.Join(cur.Argv, " ") != strings.Join(before.Argv, " ") {
					t.Errorf("the retired task is %q %q; want %q %q, as forget left it", cur.Schedule, cur.Argv, before.Schedule, before.Argv)
				}
				retiredUntouched(t, st, before.SettledThrough)
				if replaced.Task.Name != "" || replaced.Said != "" {
					t.Errorf("the reload says it replaced registration %q (%q); want none: nothing for the daemon to record later",
						replaced.Task.Name, replaced.Said)
				}
				all := strings.Join(notices, "\n")
				want := 0
				if tc.expr != def.Schedule || tc.argv != "true" {
					want = 1 // an unchanged line writes nothing: nothing refused
				}
				if n := strings.Count(all, "task job was retired since this daemon read it (catchup forget, or its line gone)"); n != want {
					t.Errorf("the daemon said %q; want the task retired since the daemon read it said %d times (%d)", all, want, n)
				}
				// The next reload registers the line anew, as of then.
				f.now = mustTime(t, "2026-03-01T15:10:00Z")
				if _, _, err := RegisterDaemonTask(ctx, st, f.m, edited, false, f.now); err != nil {
					t.Fatalf("next reload: %v", err)
				}
				cur, err = st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				if !cur.RetiredAt.IsZero() || cur.Schedule != tc.expr || !cur.SettledThrough.Equal(f.now.Add(-1e9)) {
					t.Errorf("after the next reload: %q, watermark %s, retired %s; want %q from %s, not retired",
						cur.Schedule, rfc(cur.SettledThrough), rfc(cur.RetiredAt), tc.expr, rfc(f.now.Add(-1e9)))
				}
			})
		}
	}
}
