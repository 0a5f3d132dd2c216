package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunStoresNoSecret: a `run --cron` fire registers its command with
// the well-known shapes of a secret masked (catchup/redact), and marks the
// task so (RedactedMark); the job itself gets its argv as written.
func TestRunStoresNoSecret(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"psql conninfo":    {"psql", "host=db password=S3cret dbname=x"},
		"URL userinfo":     {"curl", "https://user:S3cret@host/x"},
		"--password X":     {"tool", "--password", "S3cret"},
		"--password=X":     {"tool", "--password=S3cret"},
		"mysql glued -p":   {"mysql -pS3cret db"}, // one word: a command line whose program is mysql
		"env in sh -c":     {"sh", "-c", "PGPASSWORD=S3cret psql"},
		"bearer header":    {"curl", "-H", "Authorization: Bearer S3cret"},
		"token in a query": {"curl", "https://host/x?a=1&token=S3cret"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.Argv = append([]string{"sh", "-c", `printf '%s\n' "$@" > got`, "sh"}, args...)
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("exit %d", res.ExitCode)
			}
			got, err := os.ReadFile(filepath.Join(f.job.dir, "got"))
			if err != nil || !strings.Contains(string(got), "S3cret") {
				t.Fatalf("the job got %q (%v): want its argv as written", got, err)
			}
			task, err := f.st.Task(t.Context(), "job")
			if err != nil {
				t.Fatal(err)
			}
			if stored := strings.Join(task.Argv, " "); strings.Contains(stored, "S3cret") || !strings.Contains(stored, "***") {
				t.Errorf("the ledger keeps the command %q: want the secret masked", stored)
			}
			if task.Source != "run"+RedactedMark || !StoredRedacted(task) {
				t.Errorf("source %q: want %q", task.Source, "run"+RedactedMark)
			}
		})
	}
}

// TestScanLeavesARedactedRunTask: the ledger keeps a redacted command, which
// would not run the job: scan replays none of the task's missed slots and
// says why, naming the fix, never silently.
func TestScanLeavesARedactedRunTask(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Argv = []string{"sh", "-c", `echo ran >> ran.log`, "sh", "--password", "S3cret"}
	f.run(t, req)
	f.now = f.now.Add(3*time.Hour + 10*time.Minute)
	sreq := scanRequest()
	sreq.Tasks = []string{"job"}
	rep, err := Scan(t.Context(), f.st, f.m, sreq)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.job.dir, "ran.log")); strings.Count(string(b), "ran") != 1 {
		t.Errorf("ran.log %q: want the fire's one run, no replay", b)
	}
	var warned bool
	for _, ts := range rep.Tasks {
		if len(ts.Missed) != 3 || ts.Left != 3 {
			t.Errorf("missed %v, left %d: want 3 missed slots left", ts.Missed, ts.Left)
		}
		for _, w := range ts.Warnings {
			warned = warned || strings.Contains(w, "carries a secret")
		}
	}
	if !warned {
		t.Errorf("no warning of the redacted command: %+v", rep.Tasks)
	}
	if !rep.Failed() {
		t.Errorf("scan did not fail: no scan can replay these slots, and a timer must show it")
	}
}

// TestBackfillRefusesARedactedRunTask: backfill would run the redacted
// command; it refuses the task before anything runs, naming the fix.
func TestBackfillRefusesARedactedRunTask(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Argv = []string{"sh", "-c", `echo ran >> ran.log`, "sh", "--password", "S3cret"}
	f.run(t, req)
	f.now = f.now.Add(3 * time.Hour)
	_, err := Backfill(t.Context(), f.st, f.m, BackfillRequest{Tasks: []string{"job"},
		From: mustTime(t, "2026-03-01T11:00:00Z"), To: mustTime(t, "2026-03-01T12:00:00Z"), Only: "all", Order: "oldest", Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "carries a secret") || !strings.Contains(err.Error(), "a file the job reads") {
		t.Errorf("Backfill: %v; want it refused, naming the secret and the fix", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.job.dir, "ran.log")); strings.Count(string(b), "ran") != 1 {
		t.Errorf("ran.log %q: want the fire's one run, no backfill", b)
	}
}

// TestStartErrorKeepsNoSecret: a command that cannot start (a variable
// written where the program goes) is named in the error the ledger records
// and catchup prints: with its secret masked.
func TestStartErrorKeepsNoSecret(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		argv []string
		want string
	}{
		"PGPASSWORD=":       {[]string{"PGPASSWORD=S3cret", "psql"}, "PGPASSWORD=***"},
		"DB_PASS=":          {[]string{"DB_PASS=S3cret", "job"}, "DB_PASS=***"},
		"SECRET_KEY=":       {[]string{"SECRET_KEY='S3cret'", "job"}, "SECRET_KEY='***'"},
		"--db-password X":   {[]string{"./no-such-job --db-password S3cret"}, "--db-password ***"},
		"--client-secret X": {[]string{"./no-such-job --client-secret S3cret"}, "--client-secret ***"},
		// a command line in one word: its program's own option, as the
		// registered argv masks it, was kept by the error (whose first word
		// is "start", no program)
		"mysql -pX in one word": {[]string{"mysqldump -pS3cret db"}, "mysqldump -p*** db"},
		// once quoted by exec's error (exec: "mysql -p'***'\tdb"), now
		// named as it is (run_start_error_plain)
		"quoted by exec": {[]string{"mysql -p'S3cret'\tdb"}, "start mysql -p'***'\tdb: not found in PATH"},
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			var stderr strings.Builder
			f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&stderr, format+"\n", args...) }
			req := f.request(t)
			req.Argv = tc.argv
			if res := f.run(t, req); res.ExitCode != 127 {
				t.Fatalf("exit %d, want 127", res.ExitCode)
			}
			runs := f.history(t)
			if len(runs) != 1 || !strings.Contains(runs[0].Error, tc.want) || strings.Contains(runs[0].Error, "S3cret") {
				t.Errorf("recorded %+v: want one run whose error names %s", runs, tc.want)
			}
			if !strings.Contains(stderr.String(), tc.want) || strings.Contains(stderr.String(), "S3cret") {
				t.Errorf("stderr %q: want %s and no secret", stderr.String(), tc.want)
			}
		})
	}
}
