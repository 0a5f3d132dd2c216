package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// notifySecret is a --notify-cmd that carries a secret (a --token): run as
// written, it appends its argument to dir/notified; its masked text would
// append "--token=***".
func notifySecret(dir string) string {
	return "echo --token=S3cret >> " + filepath.Join(dir, "notified")
}

// failingNotified is a fire of task "job" whose job fails (so that its
// --notify-cmd runs), with notifySecret as its --notify-cmd; notices
// gathers what the fire says on stderr.
func (f *runFixture) failingNotified(t *testing.T, notices *[]string) RunRequest {
	t.Helper()
	req := f.request(t)
	req.Argv = []string{"sh", "-c", "echo ran >> ran.log; exit 3"}
	req.NotifyCmd = notifySecret(f.job.dir)
	f.m.Notice = func(format string, args ...any) { *notices = append(*notices, fmt.Sprintf(format, args...)) }
	return req
}

// TestRunStoresNoNotifySecret: a fire's --notify-cmd is registered with
// the shapes of a secret masked (as a command is), while the fire runs its
// own as written; the fire that registers the masked text says so once.
func TestRunStoresNoNotifySecret(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	var notices []string
	req := f.failingNotified(t, &notices)
	f.run(t, req)
	if b, _ := os.ReadFile(filepath.Join(f.job.dir, "notified")); string(b) != "--token=S3cret\n" {
		t.Errorf("notified %q: want the fire's --notify-cmd run as written", b)
	}
	task, err := f.st.Task(t.Context(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if want := "echo --token=*** >> " + filepath.Join(f.job.dir, "notified"); task.NotifyCmd != want {
		t.Errorf("the ledger keeps the --notify-cmd %q: want %q", task.NotifyCmd, want)
	}
	f.now = f.now.Add(time.Hour)
	f.run(t, req) // the next fire registers the same masked text: no second notice
	said := 0
	for _, n := range notices {
		if strings.Contains(n, "--notify-cmd") {
			said++
			if !strings.Contains(n, "masked") || !strings.Contains(n, "$HOOK_TOKEN") || strings.Contains(n, "S3cret") {
				t.Errorf("notice %q: want the masking said, the fix named, no secret", n)
			}
		}
	}
	if said != 1 {
		t.Errorf("notices %q: want one about the masked --notify-cmd", notices)
	}
}

// TestScanWithholdsAMaskedNotifyCmd: a replay of a task whose --notify-cmd
// the ledger keeps masked runs the task, never the masked text (it would
// page with ***), nor does scan's missed-slot alert; scan warns once for
// the task.
func TestScanWithholdsAMaskedNotifyCmd(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	var notices []string
	f.run(t, f.failingNotified(t, &notices))
	if err := os.Remove(filepath.Join(f.job.dir, "notified")); err != nil {
		t.Fatalf("the fire ran no --notify-cmd: %v", err)
	}
	f.now = f.now.Add(3*time.Hour + 10*time.Minute)
	ts := f.scan(t, scanRequest())
	if ts.Failed != 3 {
		t.Errorf("failed %d: want 3 replays run (and failed)", ts.Failed)
	}
	if b, err := os.ReadFile(filepath.Join(f.job.dir, "notified")); err == nil {
		t.Errorf("notified %q: a replay or the alert ran the masked --notify-cmd", b)
	}
	warned := 0
	for _, w := range ts.Warnings {
		if strings.Contains(w, "--notify-cmd") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("warnings %q: want one about the withheld --notify-cmd", ts.Warnings)
	}
}

// TestDaemonReplaysRunTheLinesNotifyCmd: a daemon line's --notify-cmd is
// registered masked too, but the daemon holds the line: its replays and
// alert run the line's own, as written (ScanRequest.NotifyCmds), and scan
// has nothing to warn of.
func TestDaemonReplaysRunTheLinesNotifyCmd(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	argv := []string{"sh", "-c", "exit 3"}
	def := store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", Replay: "all", Argv: argv, Dir: f.job.dir,
		Source: "daemon:/c:1", NotifyCmd: notifySecret(f.job.dir)}
	if _, _, err := RegisterDaemonTask(t.Context(), f.st, f.m, def, false, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if task, err := f.st.Task(t.Context(), "job"); err != nil || strings.Contains(task.NotifyCmd, "S3cret") {
		t.Fatalf("the ledger keeps the --notify-cmd %q (%v): want the secret masked", task.NotifyCmd, err)
	}
	f.now = f.now.Add(3*time.Hour + 10*time.Minute)
	req := scanRequest()
	req.Commands, req.NotifyCmds = map[string][]string{"job": argv}, map[string]string{"job": def.NotifyCmd}
	ts := f.scan(t, req)
	if b, _ := os.ReadFile(filepath.Join(f.job.dir, "notified")); ts.Failed != 3 || strings.Count(string(b), "--token=S3cret") != 4 {
		t.Errorf("failed %d, notified %q: want 3 failed replays and the alert, each running the line's --notify-cmd", ts.Failed, b)
	}
	for _, w := range ts.Warnings {
		if strings.Contains(w, "--notify-cmd") {
			t.Errorf("warning %q: the daemon runs the line's own --notify-cmd", w)
		}
	}
}
