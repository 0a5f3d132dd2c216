package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRootScanLooksAtUsersHomeAsThem: a line of nobody's crontab that
// root's scan replays on a shared ledger sets HOME to a directory behind
// one of root's that nobody cannot enter: one that exists, one that does
// not. Root's scan looked at them with root's rights: the first it found
// trusted (root's, writable by no one else) and started the replay there,
// which failed as nobody (exit 126, a run recorded failed in the ledger
// nobody reads), the second it refused as missing, recording nothing: the
// ledger told nobody which exists. Both must be refused alike, as nobody
// cannot enter them: nothing recorded, the slots left for the next scan.
func TestRootScanLooksAtUsersHomeAsThem(t *testing.T) {
	t.Parallel()
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin) // traversable by everyone (testBinDir)
	secret := filepath.Join(top, "secret")
	if err := os.Mkdir(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(secret, "there"), 0o755); err != nil {
		t.Fatal(err)
	}
	crontab := filepath.Join(top, "crontab")
	text := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\n" +
		"HOME=" + secret + "/there\n0 * * * * catchup run --task there -- true\n" +
		"HOME=" + secret + "/nothere\n0 * * * * catchup run --task nothere -- true\n"
	if err := os.WriteFile(crontab, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 65534, 65534); err != nil {
		t.Fatal(err)
	}

	first := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "-v", "--crontab", crontab)
	if code := first.run(t); code != 0 {
		t.Fatalf("first scan exited %d: %s%s", code, first.stdout.String(), first.stderr.String())
	}
	scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "-v", "--crontab", crontab)
	code := scan.run(t)
	out, errs := scan.stdout.String(), scan.stderr.String()
	if code != 1 {
		t.Fatalf("scan exited %d, want 1 (replays left): %s%s", code, out, errs)
	}
	for _, task := range []string{"there", "nothere"} {
		if want := "\n" + task + ": 2 missed, replayed 0, failed 0, skipped 0, left 2 for the next scan\n"; !strings.Contains("\n"+out, want) {
			t.Errorf("scan report lacks %q: %s%s", want, out, errs)
		}
		refused := regexp.MustCompile(`warning: task ` + task + `: its 2 missed slots are left for the next scan, not replayed: ` +
			`working directory \S+: refused: as nobody, it cannot be used: permission denied`)
		if !refused.MatchString(errs) {
			t.Errorf("no refusal of %s's home as nobody sees it: %s", task, errs)
		}
	}
	if strings.Contains(errs, "no such file") {
		t.Errorf("root's warnings tell nobody what lies behind a directory it cannot enter: %s", errs)
	}
}
