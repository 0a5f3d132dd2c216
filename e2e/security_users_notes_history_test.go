package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRootHistoryReadsUsersNotes: root's history and show read the runs of
// nobody's line as nobody's own history and show do, counting nobody's
// notes of unrecorded fires by the rule and trust of root's other readers
// (TestRootReadersReadUsersNotes). The case: a claim recorded but its
// outcome noted only. Nobody's 01:00 fire claimed its slot in the shared
// ledger, the ledger went away while the job ran, and the fire was stopped
// while it retried recording the outcome (exit 3), which it noted in
// nobody's notes. Root's history and show give that outcome, as nobody's
// own do, not a run still running or taken for interrupted; nothing is
// taken from nobody's notes. Once that notes file can no longer be trusted
// (writable by others), root's history and show say so once each, naming
// the file and the fix, and show the run as the ledger holds it.
func TestRootHistoryReadsUsersNotes(t *testing.T) {
	needRoot(t)
	proxy, db := newPGProxy(t, pgLedger(t))
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	fire := nobodysCatchup(t, bin, home, db, "2026-01-01T01:00:05Z", "run", "--task", "who", "--cron", "0 * * * *",
		"--", "sh", "-c", `touch started; while [ ! -e release ]; do sleep 0.05; done; exit 3`)
	if err := fire.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(home, "started"))
	proxy.Down()
	touch(t, filepath.Join(home, "release"))
	waitFor(t, "nobody's fire to retry recording its outcome", func() bool {
		return strings.Contains(fire.stderr.String(), "recording the outcome of run")
	})
	if err := fire.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	fire.cmd.Wait()
	if !strings.Contains(fire.stderr.String(), "is noted on this host for its next scan to record") {
		t.Fatalf("nobody's fire did not note its outcome: %s", fire.stderr.String())
	}
	proxy.Up()
	notes, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*", ".unrecorded.jsonl"))
	if len(notes) != 1 {
		t.Fatalf("nobody's notes of unrecorded fires: found %q, want one file", notes)
	}
	before, err := os.ReadFile(notes[0])
	if err != nil {
		t.Fatal(err)
	}
	const now = "2026-01-01T01:30:00Z"

	own := nobodysCatchup(t, bin, home, db, now, "history", "-o", "json")
	if code := own.run(t); code != 0 {
		t.Fatalf("nobody's history exited %d: %s", code, own.stderr.String())
	}
	var runs []struct {
		ID       int64  `json:"id"`
		Status   string `json:"status"`
		ExitCode *int   `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(own.stdout.String()), &runs); err != nil {
		t.Fatalf("nobody's history -o json: %v: %s", err, own.stdout.String())
	}
	if len(runs) != 1 || runs[0].Status != "failed" || runs[0].ExitCode == nil || *runs[0].ExitCode != 3 {
		t.Fatalf("nobody's history: %+v, want its one run failed with exit 3 (the outcome noted)", runs)
	}
	id := strconv.FormatInt(runs[0].ID, 10)

	readers := [][]string{{"history"}, {"history", "who", "-o", "json"},
		{"show", id}, {"show", id, "-o", "json"}, {"show", "--task", "who", "--last", "-o", "json"}}
	for _, args := range readers {
		theirs := nobodysCatchup(t, bin, home, db, now, args...)
		theirs.run(t)
		root := newCatchup(t, db, now, args...)
		code := root.run(t)
		if got, want := root.stdout.String(), theirs.stdout.String(); code != 0 || got != want || !strings.Contains(got, "failed") {
			t.Errorf("root's %s exited %d, want 0 showing what nobody's shows, the run failed:\nroot's:\n%s%s\nnobody's:\n%s%s",
				strings.Join(args, " "), code, got, root.stderr.String(), want, theirs.stderr.String())
		}
		if stderr := root.stderr.String(); strings.Contains(stderr, "not counting") {
			t.Errorf("root's %s refused nobody's notes: %s", strings.Join(args, " "), stderr)
		}
	}
	if after, err := os.ReadFile(notes[0]); err != nil || string(after) != string(before) {
		t.Errorf("root's history or show changed or took nobody's notes: %v", err)
	}

	// Refused: said once, naming the file and the fix; the run as the
	// ledger holds it (its process gone: interrupted, as ls shows it).
	if err := os.Chmod(notes[0], 0o666); err != nil {
		t.Fatal(err)
	}
	fix := "chmod 600 " + notes[0]
	for _, args := range [][]string{{"history", "-o", "json"}, {"history", "who", "-o", "json"}, {"show", id, "-o", "json"}} {
		root := newCatchup(t, db, now, args...)
		code := root.run(t)
		stderr := root.stderr.String()
		if n := strings.Count(stderr, "not counting the notes of unrecorded fires of nobody (who)"); n != 1 ||
			!strings.Contains(stderr, notes[0]) || !strings.Contains(stderr, fix) {
			t.Errorf("root's %s: want one warning naming %s and the fix %q, got %d: %s", strings.Join(args, " "), notes[0], fix, n, stderr)
		}
		if out := root.stdout.String(); code != 0 || !strings.Contains(out, `"status": "interrupted"`) {
			t.Errorf("root's %s exited %d, want 0 showing the run as the ledger holds it (interrupted): %s", strings.Join(args, " "), code, out)
		}
	}
}
