package catchup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotedFirstFireKeepsNoSecret: the first fire of a --cron task that
// cannot reach the ledger notes the task's registration with its command
// as the ledger keeps it (redacted); scan registers the task from the note
// with that command, marked redacted: its missed slot is stuck (scan says
// so and fails), never run with the masked command.
func TestNotedFirstFireKeepsNoSecret(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Strict = true // the fire does not run: its slot is missed
	req.Argv = []string{"sh", "-c", `echo ran >> ran.log`, "sh", "--password", "S3cret"}
	if res, err := Run(t.Context(), nil, errors.New("ledger unreachable"), f.m, req); err == nil || res.Ran {
		t.Fatalf("strict fire without a ledger: %+v, %v; want it refused, not run", res, err)
	}
	note, err := os.ReadFile(filepath.Join(f.m.LockDir, spoolName))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(note); strings.Contains(s, "S3cret") || !strings.Contains(s, `"register"`) {
		t.Fatalf("note %s: want the task's registration, without the secret", s)
	}
	f.now = mustTime(t, "2026-03-01T10:10:00Z")
	rep, err := Scan(t.Context(), f.st, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.st.Task(t.Context(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if stored := strings.Join(task.Argv, " "); strings.Contains(stored, "S3cret") || !StoredRedacted(task) {
		t.Errorf("registered from the note: command %q, source %q; want it masked and marked redacted", stored, task.Source)
	}
	if len(rep.Tasks) != 1 || rep.Tasks[0].Stuck != 1 || rep.Tasks[0].Replayed != 0 {
		t.Errorf("scan: %+v; want the 10:00 slot stuck, not replayed", rep.Tasks)
	}
	if _, err := os.Stat(filepath.Join(f.job.dir, "ran.log")); err == nil {
		t.Error("scan ran the redacted command")
	}
}
