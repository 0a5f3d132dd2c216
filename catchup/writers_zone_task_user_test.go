package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// privateZone is a copy of Asia/Tokyo in a directory only root can enter
// (zone), another copy everyone can read beside that directory (public),
// and their directory (top), which everyone can reach (t.TempDir's parents
// made traversable, as /tmp's test directories are not). It skips t
// unless it runs as root, or without a zone database.
func privateZone(t testing.TB) (top, zone, public string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it reads zone files as another user")
	}
	top = t.TempDir()
	for p := top; p != "/"; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(p, fi.Mode().Perm()|0o005)
		}
	}
	private := filepath.Join(top, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	tokyo, err := os.ReadFile("/usr/share/zoneinfo/Asia/Tokyo")
	if err != nil {
		t.Skip("no zone database: ", err)
	}
	zone, public = filepath.Join(private, "zone"), filepath.Join(top, "zone")
	for _, z := range []string{zone, public} {
		if err := os.WriteFile(z, tokyo, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return top, zone, public
}

// TestRootWritersZoneFileAsTaskUser: root's writers (pause and resume
// --replay-paused, forget, prune, backfill, reset-clock) read a task's
// zone file with its user's rights, as root's readers and scan do: a
// task of a registrant (`run:uid=N`) or of a gone crontab line (nobody)
// whose zone file that user cannot read gets no slot recorded in that
// zone (paused, expired), and a command that needs its slots says the
// zone is unknown, as whom. Before, each read it with root's rights and
// recorded that user's slots, on a ledger that user reads, in a zone only
// root could read.
func TestRootWritersZoneFileAsTaskUser(t *testing.T) {
	t.Parallel()
	top, zone, _ := privateZone(t)
	tasks := map[string]store.Task{
		"gone":    {Name: "gone", Source: "crontab:" + filepath.Join(top, "no-such-crontab") + ":2", Shell: "/bin/sh", Argv: []string{"/bin/sh", "-c", "true"}},
		"run-uid": {Name: "run-uid", Source: "run:uid=65534", Argv: []string{"true"}},
	}
	for _, tc := range []struct {
		name string
		// do runs the writer as root on task, registered 10 days before
		// f.now; it returns what it said (an error, a warning).
		do func(ctx context.Context, f *runFixture, task string) (said string, err error)
	}{
		{"pause-resume-replay-paused", func(ctx context.Context, f *runFixture, task string) (string, error) {
			now := f.now
			f.now = now.Add(-47 * time.Hour)
			if _, err := Pause(ctx, f.st, f.m, PauseRequest{Task: task}); err != nil {
				return "", err
			}
			f.now = now
			_, err := Resume(ctx, f.st, f.m, ResumeRequest{Task: task, ReplayPaused: true})
			return "", err
		}},
		{"pause-after-an-ended-pause", func(ctx context.Context, f *runFixture, task string) (string, error) {
			now := f.now
			f.now = now.Add(-47 * time.Hour)
			if _, err := Pause(ctx, f.st, f.m, PauseRequest{Task: task, Until: now.Add(-24 * time.Hour)}); err != nil {
				return "", err
			}
			f.now = now
			_, err := Pause(ctx, f.st, f.m, PauseRequest{Task: task}) // records the ended pause's slots paused
			return "", err
		}},
		{"forget", func(ctx context.Context, f *runFixture, task string) (string, error) {
			_, err := Forget(ctx, f.st, f.m, ForgetRequest{Task: task})
			return "", err
		}},
		{"prune", func(ctx context.Context, f *runFixture, task string) (string, error) {
			p, err := Prune(ctx, f.st, f.m, PruneRequest{OlderThan: 7 * 24 * time.Hour})
			return fmt.Sprint(p.Left), err
		}},
		{"backfill", func(ctx context.Context, f *runFixture, task string) (string, error) {
			_, err := Backfill(ctx, f.st, f.m, BackfillRequest{Tasks: []string{task}, From: f.now.Add(-48 * time.Hour), To: f.now,
				Only: "missing", Order: "oldest", Concurrency: 1})
			return "", err
		}},
		{"reset-clock", func(ctx context.Context, f *runFixture, task string) (string, error) {
			_, err := ResetClock(ctx, f.st, f.m, task, false)
			return "", err
		}},
	} {
		for _, name := range []string{"gone", "run-uid"} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				f := newRunFixture(t, "2026-03-01T09:30:00Z")
				f.m.UID = 0
				task := tasks[name]
				task.Schedule, task.TZ, task.Replay, task.RegisteredAt = "0 * * * *", zone, "all", f.now.Add(-10*24*time.Hour)
				if err := f.st.UpsertTask(ctx, task); err != nil {
					t.Fatal(err)
				}
				said, err := tc.do(ctx, f, name)
				if err != nil {
					said += " " + err.Error()
				}
				runs, herr := f.st.History(ctx, store.HistoryFilter{Limit: 10000})
				if herr != nil {
					t.Fatal(herr)
				}
				var slotted []string
				for _, r := range runs {
					if !r.Slot.IsZero() {
						slotted = append(slotted, fmt.Sprintf("%s %s %s", r.Slot.Format(time.RFC3339), r.Status, r.Reason))
					}
				}
				if len(slotted) != 0 {
					t.Errorf("%d records of a slot (%q...), said %q; want none: the slots come from a zone only root can read",
						len(slotted), slotted[0], said)
				}
				switch {
				case tc.name == "backfill" && name == "run-uid":
					if !strings.Contains(said, "a root scan never runs another user's command as root") {
						t.Errorf("said %q; want the task refused as another user's", said)
					}
				case tc.name == "prune" || tc.name == "backfill":
					if !strings.Contains(said, "unknown time zone") || !strings.Contains(said, "as nobody") && !strings.Contains(said, "as uid 65534") {
						t.Errorf("said %q; want its zone unknown as its user", said)
					}
				}
			})
		}
	}
}

// TestStoredSchedule: the one reader of a stored task's schedule reads a
// zone file as the task's user only for root, and only for a zone spelled
// as a path of another user's task; every other schedule is parsed at
// once, as before.
func TestStoredSchedule(t *testing.T) {
	t.Parallel()
	top, zone, _ := privateZone(t)
	gone := "crontab:" + filepath.Join(top, "no-such-crontab") + ":2"
	for _, tc := range []struct {
		name    string
		uid     int
		task    store.Task
		refused string // "": the schedule, in Asia/Tokyo
	}{
		{"not root", 1000, store.Task{Source: "run:uid=65534", TZ: zone}, ""},
		{"a zone's name", 0, store.Task{Source: "run:uid=65534", TZ: "Asia/Tokyo"}, ""},
		{"root's own run", 0, store.Task{Source: "run", TZ: zone}, ""},
		{"a registrant's", 0, store.Task{Source: "run:uid=65534", TZ: zone}, "as nobody: permission denied"},
		{"a gone line's", 0, store.Task{Source: gone, Shell: "/bin/sh", TZ: ":" + zone}, "as nobody (its crontab line is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := testMachine("", time.Now())
			m.UID = tc.uid
			tc.task.Name, tc.task.Schedule = "x", "0 9 * * *"
			s, err := storedSchedule(m, nil, tc.task)
			var next time.Time
			if s != nil {
				next, _ = s.Next(mustTime(t, "2026-03-01T00:00:00Z"))
			}
			switch {
			case tc.refused == "" && (err != nil || !next.Equal(mustTime(t, "2026-03-02T00:00:00Z"))):
				t.Errorf("next slot %v, %v; want 09:00 in Asia/Tokyo (00:00 UTC)", next, err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Errorf("schedule %v, %v; want it refused %s", s, err, tc.refused)
			}
		})
	}
}
