package catchup

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOwnLineFirstOfOneTask: of two lines naming one task, root's own is
// registered and another user's (nobody's, which a root scan on a SQLite
// ledger refuses anyway) is the one warned about, whatever the order of
// the files given to scan: nobody's crontab given first kept root's line
// from ever registering, its job never replayed.
func TestOwnLineFirstOfOneTask(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives a crontab to nobody")
	}
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	dir := t.TempDir()
	theirs, mine := filepath.Join(dir, "nobody.crontab"), filepath.Join(dir, "root.crontab")
	for path, cmd := range map[string]string{theirs: "touch /nonexistent/taken", mine: "true"} {
		if err := os.WriteFile(path, []byte("0 * * * * catchup run --task settle -- "+cmd+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), f.st, f.m, ScanRequest{MaxReplays: 100, MissedRule: MissedRule{Tolerance: 5 * time.Minute},
		Crontabs: []CrontabSource{{Name: theirs, Path: theirs}, {Name: mine, Path: mine}}})
	if err != nil {
		t.Fatal(err)
	}
	task, err := f.st.Task(t.Context(), "settle")
	if err != nil || task.Source != "crontab:"+mine+":1" {
		t.Errorf("task settle: %+v, %v; want root's line registered (warnings %q)", task, err, rep.Warnings)
	}
}
