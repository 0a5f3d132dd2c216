package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsersOwedAlertsBoundedInAll: root's scan sends at most 4 of a
// user's owed alerts per scan, wherever their lines keep them. Two lines
// of nobody's crontab name a state directory each (CATCHUP_STATE_DIR
// above them), each holding 3 alerts owed for its task: root's scan sent
// 4 of each directory's, the bound counted afresh in each, so that a
// crontab of a thousand such lines had one root scan run 4,000 of
// nobody's commands (each up to 30 s). It now sends 4 in all and says it
// left the other 2 for the next scan.
func TestUsersOwedAlertsBoundedInAll(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	order := filepath.Join(home, "order.log")
	writeFileOf(t, order, "", 65534)
	const homes = 2
	var text strings.Builder
	fmt.Fprintf(&text, "CATCHUP_DB=%s\n%s=1\nPATH=%s:/usr/bin:/bin\nHOME=%s\n", db, asCatchup, bin, home)
	for i := range homes {
		state := userDir(t, home, fmt.Sprintf("s%d", i), 65534, 65534)
		fmt.Fprintf(&text, "CATCHUP_STATE_DIR=%s\n0 * * * * catchup run --task w%d -- true\n", state, i)
	}
	crontab := filepath.Join(top, "crontab")
	writeFileOf(t, crontab, text.String(), 65534)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	// nobody's fire of each line makes its lock directory of this ledger.
	pid := 0
	for i := range homes {
		fire := nobodysCatchup(t, bin, home, db, "2026-01-01T01:00:05Z", "run", "--task", fmt.Sprintf("w%d", i), "--", "true")
		fire.cmd.Env = append(fire.cmd.Env, "CATCHUP_STATE_DIR="+filepath.Join(home, fmt.Sprintf("s%d", i)))
		if code := fire.run(t); code != 0 {
			t.Fatalf("nobody's fire of w%d exited %d: %s", i, code, fire.stderr.String())
		}
		pid = fire.cmd.Process.Pid // gone: the alerts it owes are for a scan to send
		found, _ := filepath.Glob(filepath.Join(home, fmt.Sprintf("s%d", i), "locks", "*"))
		if len(found) != 1 {
			t.Fatalf("nobody's lock directories under s%d: %q, want one", i, found)
		}
		for j := range 3 {
			body := fmt.Sprintf(`{"task":"w%d","cmd":"echo alert >> %s","host":"testhost","pid":%d,`+
				`"run":{"id":%d,"slot":"2026-01-01T01:00:00Z","trigger":"cron","attempt":1,"status":"failed","exit_code":1},"slots":null,"causes":null}`,
				i, order, pid, 900000000+10*i+j)
			writeFileOf(t, filepath.Join(found[0], fmt.Sprintf(".alert-owed.%d.%d.json", pid, 100+j)), body, 65534)
		}
	}
	scan := newCatchup(t, db, "2026-01-01T01:30:00Z", "scan", "--crontab", crontab)
	code := scan.run(t)
	t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if got := len(readLines(t, order)); got != 4 {
		t.Errorf("root's scan sent %d of nobody's owed alerts, want 4 (at most 4 of a user's per scan)", got)
	}
	if !strings.Contains(scan.stderr.String(), "2 more alerts owed by the fires of nobody are left for the next scan") {
		t.Errorf("root's scan did not say it left 2 of nobody's alerts for the next scan")
	}
}
