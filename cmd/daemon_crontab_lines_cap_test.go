package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/store/sqlite"
)

// TestDaemonCrontabJobLinesCapped: a daemon's crontab of more job lines
// than cron loads entries of one crontab (crontab.MaxCatchupLines, the cap
// scan puts on a crontab's catchup lines) is refused whole, at start and
// at a reload, before any line is registered: every job line of it is a
// task, each one a registration and a loop (a crontab of 267,000 such
// lines, under the 16 MiB size cap, cost scan minutes and gigabytes; the
// daemon read it by its path with no such cap). At the cap it is read.
func TestDaemonCrontabJobLinesCapped(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		jobs    int
		refused bool
	}{
		"at the cap":       {jobs: crontab.MaxCatchupLines},
		"one over the cap": {jobs: crontab.MaxCatchupLines + 1, refused: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			led, err := sqlite.Open(ctx, filepath.Join(dir, "catchup.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer led.Close()
			st := &failingRegistrations{Store: led}
			st.fail.Store(1) // a registration fails: none must be tried when the crontab is refused
			var b strings.Builder
			b.WriteString("# comments and variables do not count\nPATH=/usr/bin:/bin\n")
			for i := range tc.jobs {
				fmt.Fprintf(&b, "# catchup: task=j%d\n0 0 1 1 * true\n", i)
			}
			file := filepath.Join(dir, "crontab")
			must(t, os.WriteFile(file, []byte(b.String()), 0o600))
			now := time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC)
			m := catchup.Machine{Now: func() time.Time { return now }, Zone: "UTC", Host: "h", UID: os.Geteuid(), PID: os.Getpid(),
				LockDir: filepath.Join(dir, "locks"), DB: filepath.Join(dir, "catchup.db"), Stdout: io.Discard, Stderr: io.Discard,
				Notice: func(string, ...any) {}, HomeDir: func(string) (string, error) { return dir, nil }}
			_, err = daemonTasks(ctx, st, m, []string{file}, func(string) time.Time { return time.Time{} }, nil)
			want := fmt.Sprintf("crontab %s holds more than %d job lines", file, crontab.MaxCatchupLines)
			switch {
			case tc.refused && (err == nil || !strings.Contains(err.Error(), want)):
				t.Fatalf("daemonTasks: %v; want %q", err, want)
			case !tc.refused && (err == nil || !strings.Contains(err.Error(), "disk is full")):
				t.Fatalf("daemonTasks: %v; want its lines read, up to the registration the ledger refused", err)
			}
			if tasks, err := led.Tasks(ctx); err != nil || len(tasks) != 0 {
				t.Errorf("%d tasks registered, %v; want none", len(tasks), err)
			}
		})
	}
}
