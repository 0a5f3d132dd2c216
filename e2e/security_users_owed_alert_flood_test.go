package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsersOwedAlertsHoldNoReplayBack: nobody fills its lock directory
// with alerts owed for its own task (runs the ledger does not hold, so
// each runs its --notify-cmd, up to 30 s each). Root's scan, which pays
// them as nobody, paid them all before any replay: a thousand of them
// held root's backlog for hours after a boot. It now pays them after its
// replays, at most 4 of a user's per scan, saying how many it left for
// the next scan.
func TestUsersOwedAlertsHoldNoReplayBack(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	order := filepath.Join(home, "order.log") // nobody's, which root's job writes too
	writeFileOf(t, order, "", 65534)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	fire := nobodysFire(t, bin, home, db, "2026-01-01T01:00:05Z")
	if code := fire.run(t); code != 0 {
		t.Fatalf("nobody's fire exited %d: %s", code, fire.stderr.String())
	}
	root := newCatchup(t, db, "2026-01-01T01:00:05Z", "run", "--task", "mine", "--cron", "0 * * * *", "--",
		"sh", "-c", "echo root >> "+order)
	if code := root.run(t); code != 0 {
		t.Fatalf("root's fire exited %d: %s", code, root.stderr.String())
	}
	dir := filepath.Dir(nobodysNotesDir(t, home))
	for i := range 10 {
		body := fmt.Sprintf(`{"task":"who","cmd":"echo alert >> %s","host":"testhost","pid":%d,`+
			`"run":{"id":%d,"slot":"2026-01-01T01:00:00Z","trigger":"cron","attempt":1,"status":"failed","exit_code":1},"slots":null,"causes":null}`,
			order, fire.cmd.Process.Pid, 900000000+i)
		path := filepath.Join(dir, fmt.Sprintf(".alert-owed.%d.%d.json", fire.cmd.Process.Pid, 100+i))
		writeFileOf(t, path, body, 65534)
	}
	scan := newCatchup(t, db, "2026-01-01T03:30:00Z", "scan", "--crontab", crontab)
	code := scan.run(t)
	t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	got := strings.Join(readLines(t, order), " ")
	if want := "root root root alert alert alert alert"; got != want {
		t.Errorf("order.log: %q, want %q (root's fire and its 2 replays first, then 4 of nobody's alerts)", got, want)
	}
	if !strings.Contains(scan.stderr.String(), "6 more alerts owed by the fires of nobody") {
		t.Errorf("scan did not say it left 6 of nobody's alerts for the next scan: %s", scan.stderr.String())
	}
	if left := nobodysOwedAlerts(t, home); len(left) != 6 {
		t.Errorf("owed alerts left in nobody's lock directory: %d, want 6", len(left))
	}
}
