package daemon

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// homeLine makes f's task a line that runs ./job.sh in home (f.dir/home,
// its own), registered so: its replays start there too. The job appends
// its slot and trigger to f.dir/fires.log (f.fires). It returns home.
func homeLine(t *testing.T, f *fireFixture) string {
	t.Helper()
	home := filepath.Join(f.dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	f.writeJob(t, home, false)
	argv := []string{"/bin/sh", "-c", "./job.sh"}
	def := f.task.Def
	def.Argv, def.Dir = argv, home
	def, _, err := catchup.RegisterDaemonTask(context.Background(), f.st, f.d.cfg.Machine, def, false, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	f.task.Def = def
	f.task.Req.Argv, f.task.Req.Dir = argv, home
	return home
}

// writeJob writes dir/job.sh: the line's own (it appends to fires.log), or
// another user's (planted: it touches f.dir/planted).
func (f *fireFixture) writeJob(t *testing.T, dir string, planted bool) {
	t.Helper()
	job := "#!/bin/sh\necho \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> " + filepath.Join(f.dir, "fires.log") + "\n"
	if planted {
		job = "#!/bin/sh\ntouch " + filepath.Join(f.dir, "planted") + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "job.sh"), []byte(job), 0o755); err != nil {
		t.Fatal(err)
	}
}

// plantedRan reports whether another user's job.sh ran.
func (f *fireFixture) plantedRan() bool {
	_, err := os.Stat(filepath.Join(f.dir, "planted"))
	return !errors.Is(err, fs.ErrNotExist)
}

// failedRuns are the task's runs recorded failed.
func (f *fireFixture) failedRuns(t *testing.T) []store.Run {
	t.Helper()
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: f.task.Def.Name, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var failed []store.Run
	for _, r := range runs {
		if r.Status == store.StatusFailed {
			failed = append(failed, r)
		}
	}
	return failed
}

// TestFireInAnUntrustedHomeRunsNothing: a daemon fire starts its line's job
// in the line's home (HOME, the crontab's or the daemon's), the directory
// its replays start in too, which a scan refuses when another user
// controls it (catchup's trustedWorkDir): a ./job.sh there may be theirs.
// The fire was not checked: it ran their file. Now it is refused as a
// replay is: not started, nothing recorded, one warning for the line
// naming the directory and the fix (not one per fire), its slots left
// missed; once the home is fixed, they run, oldest first, before the next
// fire.
func TestFireInAnUntrustedHomeRunsNothing(t *testing.T) {
	t.Parallel()
	chown := func(t *testing.T, path string, uid int) {
		t.Helper()
		if err := os.Lchown(path, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
	for name, tc := range map[string]struct {
		root  bool // the case gives files to another user
		spoil func(t *testing.T, f *fireFixture, home string)
		want  string // the warning's refusal
	}{
		"writable by others": {
			spoil: func(t *testing.T, f *fireFixture, home string) {
				f.writeJob(t, home, true)
				if err := os.Chmod(home, 0o777); err != nil {
					t.Fatal(err)
				}
			},
			want: `working directory \S+/home: refused: it is writable by others \(mode 0777\); fix: chmod go-w \S+/home`,
		},
		"owned by another uid": {
			root: true,
			spoil: func(t *testing.T, f *fireFixture, home string) {
				f.writeJob(t, home, true)
				chown(t, filepath.Join(home, "job.sh"), 65534)
				chown(t, home, 65534)
			},
			want: `working directory \S+/home: refused: it is owned by uid 65534.*; fix: remove it if you did not make it, or set HOME in the crontab, above the line, to a directory of your own`,
		},
		"a planted symlink": {
			root: true,
			spoil: func(t *testing.T, f *fireFixture, home string) {
				theirs := filepath.Join(f.dir, "theirs")
				if err := os.Mkdir(theirs, 0o755); err != nil {
					t.Fatal(err)
				}
				f.writeJob(t, theirs, true)
				if err := os.RemoveAll(home); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(theirs, home); err != nil {
					t.Fatal(err)
				}
				chown(t, home, 65534)
			},
			want: `working directory \S+/home \S+/home: refused: it is a symlink owned by uid 65534.*; fix: remove it if you did not put it there`,
		},
		"missing": {
			spoil: func(t *testing.T, f *fireFixture, home string) {
				if err := os.RemoveAll(home); err != nil {
					t.Fatal(err)
				}
			},
			want: `working directory \S+/home: refused: it cannot be used: no such file or directory; fix: make it again, or set HOME in the crontab, above the line, to a directory of your own`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("gives files to another user: run as root")
			}
			start := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
			f := newFireFixture(t, "tick", "all", start)
			home := homeLine(t, f)
			set := f.movableClock(start)
			f.d.cfg.Rule = catchup.MissedRule{MaxAge: 24 * time.Hour, Tolerance: 5 * time.Minute, FiredAfter: start}
			f.d.cfg.Rescan = 0
			tc.spoil(t, f, home)
			lctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			through := new(progress)
			done := make(chan struct{})
			go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, start, through) }()
			waitFor := f.waiter(t)
			for _, m := range []int{1, 2} {
				slot := time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC)
				set(slot.Add(5 * time.Second))
				waitFor("the loop to come to "+slot.Format(time.Kitchen), func() bool { return !through.get().Before(slot) })
				f.d.fires.Wait() // its fire has ended
			}
			if f.plantedRan() {
				t.Fatalf("a fire ran the job.sh another user put in the line's home; log:\n%s", f.logs.String())
			}
			if failed := f.failedRuns(t); len(failed) > 0 {
				t.Errorf("the refused fires are recorded failed: %+v; want their slots left missed", failed)
			}
			said := func() {
				t.Helper()
				logs := f.logs.String()
				if n := strings.Count(logs, "working directory"); n != 1 {
					t.Errorf("the refusal is said %d times, want once for the line:\n%s", n, logs)
				}
				if !regexp.MustCompile(`level=WARN .*task tick: .*` + tc.want).MatchString(logs) {
					t.Errorf("no warning matching %q:\n%s", tc.want, logs)
				}
			}
			said()

			// Fixed: the home is the line's own again, with its own job.
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(home, 0o755); err != nil {
				t.Fatal(err)
			}
			f.writeJob(t, home, false)
			set(time.Date(2026, 3, 1, 10, 3, 5, 0, time.UTC))
			waitFor("10:03's fire", func() bool { return strings.Contains(f.fires(), "10:03:00Z schedule") })
			cancel()
			<-done
			f.d.fires.Wait()
			want := "2026-03-01T10:01:00Z replay\n2026-03-01T10:02:00Z replay\n2026-03-01T10:03:00Z schedule\n"
			if got := f.fires(); got != want {
				t.Errorf("once fixed, the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
			}
			if f.plantedRan() {
				t.Error("another user's job.sh ran")
			}
			said()
		})
	}
}
