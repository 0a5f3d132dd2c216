package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
	t.Parallel() // waits more than it works: see TestMain
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
	notes := nobodysNotes(t, home)
	before, err := os.ReadFile(notes)
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
	if after, err := os.ReadFile(notes); err != nil || string(after) != string(before) {
		t.Errorf("root's history or show changed or took nobody's notes: %v", err)
	}

	// Refused: said once, naming the file and the fix; the run as the
	// ledger holds it (its process gone: interrupted, as ls shows it).
	if err := os.Chmod(notes, 0o666); err != nil {
		t.Fatal(err)
	}
	fix := "chmod 600 " + notes
	for _, args := range [][]string{{"history", "-o", "json"}, {"history", "who", "-o", "json"}, {"show", id, "-o", "json"}} {
		root := newCatchup(t, db, now, args...)
		code := root.run(t)
		stderr := root.stderr.String()
		if n := strings.Count(stderr, "not counting the notes of unrecorded fires of nobody (who)"); n != 1 ||
			!strings.Contains(stderr, notes) || !strings.Contains(stderr, fix) {
			t.Errorf("root's %s: want one warning naming %s and the fix %q, got %d: %s", strings.Join(args, " "), notes, fix, n, stderr)
		}
		if out := root.stdout.String(); code != 0 || !strings.Contains(out, `"status": "interrupted"`) {
			t.Errorf("root's %s exited %d, want 0 showing the run as the ledger holds it (interrupted): %s", strings.Join(args, " "), code, out)
		}
	}
}

// TestRootReadersReadUsersNotes: before root's scan replays nobody's line,
// root's readers tell what that scan will do, counting nobody's notes of
// unrecorded fires as it does (S7d: every reader gives the same cause).
// The 01:00 fire ran unrecorded (noted in nobody's notes alone): it is not
// missed; the 02:00 fire did not run: missed, ledger-unreachable (before,
// both were missed, not-fired). Nothing is taken from nobody's notes.
func TestRootReadersReadUsersNotes(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	nobodysTwoFires(t, db, bin, crontab, home)
	notes := nobodysNotes(t, home)
	before, err := os.ReadFile(notes)
	if err != nil {
		t.Fatal(err)
	}
	const now = "2026-01-01T02:30:00Z"

	ls := newCatchup(t, db, now, "ls", "--missed", "-o", "json")
	ls.run(t)
	var rows []struct {
		Task         string   `json:"task"`
		MissedSlots  []string `json:"missed_slots"`
		MissedCauses []string `json:"missed_causes"`
	}
	if err := json.Unmarshal([]byte(ls.stdout.String()), &rows); err != nil {
		t.Fatalf("ls --missed -o json: %v: %s%s", err, ls.stdout.String(), ls.stderr.String())
	}
	if len(rows) != 1 || rows[0].Task != "who" || strings.Join(rows[0].MissedSlots, ",") != "2026-01-01T02:00:00Z" ||
		strings.Join(rows[0].MissedCauses, ",") != "ledger-unreachable" {
		t.Errorf("ls --missed -o json: %+v, want who missing 02:00 alone, ledger-unreachable", rows)
	}

	ran := newCatchup(t, db, now, "explain", "who", "2026-01-01T01:00:00Z")
	if code := ran.run(t); code != 0 || strings.Contains(ran.stdout.String(), "missed") || !strings.Contains(ran.stdout.String(), "unrecorded") {
		t.Errorf("explain who 01:00 exited %d, want 0 telling a run unrecorded, not missed: %s%s", code, ran.stdout.String(), ran.stderr.String())
	}
	refused := newCatchup(t, db, now, "explain", "who", "2026-01-01T02:00:00Z")
	if code := refused.run(t); code != 0 || !strings.Contains(refused.stdout.String(), "ledger-unreachable") {
		t.Errorf("explain who 02:00 exited %d, want 0 with the cause ledger-unreachable: %s%s", code, refused.stdout.String(), refused.stderr.String())
	}

	metrics := newCatchup(t, db, now, "metrics")
	metrics.run(t)
	if out := metrics.stdout.String(); !strings.Contains(out, `catchup_missed_slots{cause="ledger-unreachable",task="who"} 1`) ||
		!strings.Contains(out, `catchup_missed_slots{cause="not-fired",task="who"} 0`) {
		t.Errorf("metrics: want who's one missed slot ledger-unreachable: %s", out)
	}

	cal := newCatchup(t, db, now, "calendar", "who", "--days", "1", "-o", "json")
	cal.run(t)
	if out := cal.stdout.String(); !regexp.MustCompile(`"2026-01-01T01:00:00Z",\s*"state":\s*"ran"`).MatchString(out) {
		t.Errorf("calendar: want 01:00 ran: %s%s", out, cal.stderr.String())
	}

	for _, args := range [][]string{{"scan", "--dry-run"}, {"scan", "--dry-run", "--crontab", crontab}} {
		dry := newCatchup(t, db, now, args...)
		code := dry.run(t)
		out := dry.stdout.String()
		if code != 0 || !strings.Contains(out, "2026-01-01T02:00:00Z  would replay  ledger-unreachable") || strings.Contains(out, "2026-01-01T01:00:00Z") {
			t.Errorf("%s exited %d, want 0 replaying 02:00 alone, ledger-unreachable: %s%s", strings.Join(args, " "), code, out, dry.stderr.String())
		}
	}
	if after, err := os.ReadFile(notes); err != nil || string(after) != string(before) {
		t.Errorf("root's readers changed or took nobody's notes: %v", err)
	}
	if got := readLines(t, filepath.Join(home, "who.log")); len(got) != 1 {
		t.Errorf("who ran for %q, want its 01:00 fire alone: readers run nothing", got)
	}
}
