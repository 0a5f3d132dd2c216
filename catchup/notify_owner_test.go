package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// registerAsUser registers task "job" through root's fire, then gives it
// the source and --notify-cmd of another user's (uid 1001) `catchup run
// --cron --notify-cmd`, as that user's own fire on a shared ledger stores
// them. The notify command, run, writes the uid it ran as to the returned
// file.
func registerAsUser(t *testing.T, f *runFixture) string {
	t.Helper()
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	task, err := f.st.Task(t.Context(), "job")
	if err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "notify-ran")
	task.Source, task.NotifyCmd = runSource(1001, false), "id -u >> "+ran
	if err := f.st.UpsertTask(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	return ran
}

// TestRootScanRunsNoOtherUsersNotifyCmd: a root scan leaves another user's
// `run --cron` task to that user (refusedAsRoot), and its missed-slot
// alert too: the task's --notify-cmd is that user's command, which root's
// scan ran as root.
func TestRootScanRunsNoOtherUsersNotifyCmd(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	ran := registerAsUser(t, f)
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	ts := f.scan(t, scanRequest())
	if len(ts.Missed) != 2 || ts.Replayed != 0 {
		t.Fatalf("root's scan: missed %d, replayed %d; want 2 missed, none replayed", len(ts.Missed), ts.Replayed)
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("root's scan ran uid 1001's --notify-cmd (as uid %s)", strings.TrimSpace(string(b)))
	}
	// Scan's own --notify-cmd is root's: it still alerts.
	req := scanRequest()
	req.NotifyCmd = "echo root >> " + ran
	f.scan(t, req)
	if b, _ := os.ReadFile(ran); string(b) != "root\n" {
		t.Errorf("scan's own --notify-cmd: the alert file holds %q, want root's alert only", b)
	}
}

// TestRootPruneRunsNoOtherUsersNotifyCmd: nor does a root prune that
// records another user's task's slots expired run its --notify-cmd.
func TestRootPruneRunsNoOtherUsersNotifyCmd(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	ran := registerAsUser(t, f)
	f.now = f.now.Add(10 * 24 * time.Hour)
	got, err := Prune(context.Background(), f.st, f.m, PruneRequest{OlderThan: MinPruneAge})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Recorded) != 1 || got.Recorded[0].Expired == 0 {
		t.Fatalf("prune recorded %+v, want the task's slots before the cut expired", got.Recorded)
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("root's prune ran uid 1001's --notify-cmd (as uid %s)", strings.TrimSpace(string(b)))
	}
}

// TestCrontabLineKeepsNoOtherUsersNotifyCmd: root's crontab line that
// registers a task another user's `run --cron` registered last does not
// take that user's --notify-cmd into its registration, which root's scan
// would then run as root as the task's own alert.
func TestCrontabLineKeepsNoOtherUsersNotifyCmd(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	ran := registerAsUser(t, f)
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	tab := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(tab, []byte("0 * * * * catchup run --task job -- false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(context.Background(), f.st, f.m, ScanRequest{Crontabs: []CrontabSource{{Name: tab, Path: tab}},
		MaxReplays: 100, MissedRule: MissedRule{Tolerance: 5 * time.Minute}}); err != nil {
		t.Fatal(err)
	}
	task, err := f.st.Task(t.Context(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if task.NotifyCmd != "" {
		t.Errorf("root's line registered the task with uid 1001's --notify-cmd %q", task.NotifyCmd)
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("root's scan ran uid 1001's --notify-cmd (as uid %s)", strings.TrimSpace(string(b)))
	}
}
