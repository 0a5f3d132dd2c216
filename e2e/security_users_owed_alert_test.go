package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRootScanSendsUsersOwedAlertAsThem: a fire of nobody's line failed,
// its outcome recorded, and was cut (a power cut: SIGSTOP, then SIGKILL)
// before its --notify-cmd ran; its alert is owed, kept where nobody's
// catchup keeps its files, which only nobody's scans pay. Root's scan,
// which replays nobody's lines as nobody, sends it too: as nobody (that
// user's command, never root's to run as root), once. The fire is held
// after its outcome by its end ping, to a monitor that never answers.
func TestRootScanSendsUsersOwedAlertAsThem(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	var endPing atomic.Bool
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/start") {
			endPing.Store(true)
		}
		select { // never answered
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	alerts := filepath.Join(home, "alert.log")
	fire := nobodysCatchup(t, bin, home, db, "2026-01-01T01:00:05Z", "run", "--task", "who", "--cron", "0 * * * *",
		"--ping", srv.URL+"/hc", "--notify-cmd", `echo "$(id -u) $CATCHUP_STATUS $CATCHUP_SLOT" >> `+alerts,
		"--", "sh", "-c", "exit 3")
	if err := fire.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "nobody's fire to send its end ping (its outcome recorded)", endPing.Load)
	powerCut(t, fire.cmd.Process.Pid)
	fire.cmd.Wait()
	if _, err := os.Stat(alerts); err == nil {
		t.Fatalf("the fire sent its alert before it was cut: %q", readLines(t, alerts))
	}

	scan := func(now string) {
		t.Helper()
		p := newCatchup(t, db, now, "scan", "--crontab", crontab)
		code := p.run(t)
		t.Logf("root's scan at %s: exit %d\n%s%s", now, code, p.stdout.String(), p.stderr.String())
	}
	scan("2026-01-01T01:30:00Z")
	scan("2026-01-01T01:45:00Z")
	want := []string{"65534 failed 2026-01-01T01:00:00Z"}
	if got := readLines(t, alerts); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("alerts sent: %q, want %q (nobody's, once, as nobody)", got, want)
	}
	if left := nobodysOwedAlerts(t, home); len(left) != 0 {
		t.Errorf("owed alerts left in nobody's lock directory: %q", left)
	}

	// Forged by nobody: an alert owed for root's task, and one for its own
	// task with the run of root's (its output tail would reach nobody's
	// command). Root's scan sends neither.
	if p := newCatchup(t, db, "2026-01-01T02:00:05Z", "run", "--task", "mine", "--", "sh", "-c", "echo root-secret >&2; exit 7"); p.run(t) != 7 {
		t.Fatalf("root's failing run: %s", p.stderr.String())
	}
	hist := newCatchup(t, db, "", "history", "mine", "-o", "json")
	if hist.run(t) != 0 {
		t.Fatal(hist.stderr.String())
	}
	var runs []struct{ ID int64 }
	if err := json.Unmarshal([]byte(hist.stdout.String()), &runs); err != nil || len(runs) == 0 {
		t.Fatalf("root's runs of mine: %v %q", err, hist.stdout.String())
	}
	dir := filepath.Dir(nobodysNotesDir(t, home))
	forge := func(name, task string) {
		body := fmt.Sprintf(`{"task":%q,"cmd":"echo \"forged $(id -u) $CATCHUP_TASK $CATCHUP_STDERR_TAIL\" >> %s","host":"testhost","pid":%d,`+
			`"run":{"id":%d,"slot":"0001-01-01T00:00:00Z","trigger":"manual","attempt":1,"status":"failed","exit_code":7},"slots":null,"causes":null}`,
			task, alerts, fire.cmd.Process.Pid, runs[0].ID)
		writeFileOf(t, filepath.Join(dir, name), body, 65534)
	}
	forge(fmt.Sprintf(".alert-owed.%d.100.json", fire.cmd.Process.Pid), "mine")
	forge(fmt.Sprintf(".alert-owed.%d.101.json", fire.cmd.Process.Pid), "who")
	scan("2026-01-01T02:30:00Z")
	if got := readLines(t, alerts); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("alerts sent: %q, want %q: root's scan sent an alert nobody forged", got, want)
	}
	// Read (the run is another task's: it owes nothing, removed) or left
	// to nobody's scans (root's task: not nobody's to alert).
	left := nobodysOwedAlerts(t, home)
	if len(left) != 1 || !strings.HasSuffix(left[0], ".100.json") {
		t.Errorf("owed alerts left in nobody's lock directory: %q, want the one for root's task", left)
	}
}

// nobodysOwedAlerts lists the owed alerts in nobody's lock directories under home.
func nobodysOwedAlerts(t *testing.T, home string) []string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*", ".alert-owed.*.json"))
	return found
}

// nobodysNotesDir is a file path in nobody's one lock directory under home.
func nobodysNotesDir(t *testing.T, home string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*"))
	if len(found) != 1 {
		t.Fatalf("nobody's lock directories: %q, want one", found)
	}
	return filepath.Join(found[0], "x")
}
