package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestDaemonSaysRefusedUsersNotesOnce: root's `catchup daemon --listen`
// counts nobody's notes of unrecorded fires on every scrape of /metrics,
// as root's readers do (readUsersNotes). While nobody's notes file is
// refused, the daemon's log says so once, not at every scrape (a scrape
// every 15 s repeated it into the journal forever): again only when the
// reason changes (the file made a symlink: another fix), or when it was
// trusted again and then refused again. Each scrape still counts the
// missed slots of the moment, and serves the warnings it gave as a gauge
// (catchup_daemon_scrape_warnings), which keeps the refusal in sight.
func TestDaemonSaysRefusedUsersNotesOnce(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 {
		t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
	}
	notes := nobodysNotes(t, home)
	if err := os.Chmod(notes, 0o666); err != nil {
		t.Fatal(err)
	}

	// Root's daemon runs a line of its own that never comes due in the
	// test; the ledger holds nobody's task, which /metrics reads.
	roots := filepath.Join(t.TempDir(), "root.crontab")
	if err := os.WriteFile(roots, []byte("CRON_TZ=UTC\n# catchup: task=mine\n0 0 1 6 * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := newCatchup(t, db, "2026-01-01T02:20:00Z", "daemon", "--crontab", roots, "--listen", "127.0.0.1:0")
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL); d.cmd.Wait() })
	listening := regexp.MustCompile(`event=listen addr=(\S+)`)
	var addr string
	waitFor(t, "the daemon to serve /metrics (its event=listen line)", func() bool {
		if m := listening.FindStringSubmatch(d.stderr.String()); m != nil {
			addr = m[1]
			return true
		}
		return false
	})

	const warning = "not counting the notes of unrecorded fires of nobody (who)"
	// missed is how many of who's slots a scrape counts missed: 01:00
	// and 02:00 while the notes are refused, 02:00 alone while trusted;
	// the gauge of the scrape's warnings is 1 while refused, else 0.
	scrape := func(what string, missed int) string {
		t.Helper()
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatalf("scrape (%s): %v", what, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("scrape (%s): %d %v\n%s", what, resp.StatusCode, err, b)
		}
		if want := fmt.Sprintf(`catchup_missed_slots{cause="not-fired",task="who"} %d`, missed); !strings.Contains(string(b), want) {
			t.Errorf("scrape (%s): want %s, counted at this scrape:\n%s", what, want, b)
		}
		warnings := map[bool]string{true: "1", false: "0"}[missed == 2]
		if want := "\ncatchup_daemon_scrape_warnings " + warnings + "\n"; !strings.Contains(string(b), want) {
			t.Errorf("scrape (%s): want %s:\n%s", what, strings.TrimSpace(want), b)
		}
		return string(b)
	}
	said := func(what string, want int, fix string) {
		t.Helper()
		log := d.stderr.String()
		var lines []string
		for _, l := range strings.Split(log, "\n") {
			if strings.Contains(l, warning) {
				lines = append(lines, l)
			}
		}
		if len(lines) != want {
			t.Fatalf("%s: the daemon's log says %d times that nobody's notes are refused, want %d:\n%s", what, len(lines), want, log)
		}
		if last := lines[len(lines)-1]; !strings.Contains(last, notes) || !strings.Contains(last, fix) {
			t.Errorf("%s: the warning does not name %s and the fix %q: %s", what, notes, fix, last)
		}
	}

	for range 3 {
		scrape("notes writable by others", 2)
	}
	said("three scrapes of a refused notes file", 1, "chmod 600 "+notes)

	if err := os.Chmod(notes, 0o600); err != nil {
		t.Fatal(err)
	}
	scrape("notes trusted again", 1)
	said("a scrape once the notes file is trusted again", 1, "chmod 600 "+notes)
	if err := os.Chmod(notes, 0o666); err != nil {
		t.Fatal(err)
	}
	scrape("notes refused again", 2)
	scrape("notes refused again", 2)
	said("two scrapes once the notes file is refused again", 2, "chmod 600 "+notes)

	// Another reason: the file made a symlink (to a file of root's).
	target := filepath.Join(t.TempDir(), "roots-notes")
	if err := os.WriteFile(target, []byte("root's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, notes); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(notes, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	scrape("notes a symlink", 2)
	scrape("notes a symlink", 2)
	said("two scrapes of a notes file refused for another reason", 3, "rm "+notes)
}
