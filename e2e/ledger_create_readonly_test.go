package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewLedgerInReadOnlyDirectorySaysTheFix: a first run or scan that
// cannot create the ledger (its directory, or the directory that would
// hold its directory, is not this user's to write) says so in one line
// naming that directory and the fix, as for an existing ledger
// (TestReadOnlyLedgerSaysTheFix); never the name of the temporary file a
// new ledger is made under (".catchup.db.new-PID-N", which the operator
// never named), nor a bare "mkdir DIR: permission denied". Found by review:
// "create ledger DIR/catchup.db: open DIR/.catchup.db.new-28686-3797963766:
// permission denied".
func TestNewLedgerInReadOnlyDirectorySaysTheFix(t *testing.T) {
	for name, c := range map[string]struct {
		ledgerIn string
		rootOwns bool // state is root's, 0755: never "chown nobody state", a directory above the ledger's
	}{
		"read-only ledger directory":             {ledgerIn: "state"},        // state exists, 0555
		"ledger directory under a read-only one": {ledgerIn: "state/ledger"}, // state exists, 0555; ledger does not
		"ledger directory under root's":          {ledgerIn: "state/ledger", rootOwns: true},
	} {
		t.Run(name, func(t *testing.T) {
			dir := reachableTempDir(t)
			cred := asNobody(t, dir)
			if cred == nil {
				t.Skip("needs root, to run catchup as nobody (root writes any directory)")
			}
			ro := filepath.Join(dir, "state")
			if err := os.Mkdir(ro, 0o700); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, c.ledgerIn, "catchup.db")
			fix := "chmod u+w " + ro
			if c.rootOwns {
				os.Chmod(ro, 0o755)
				fix = "as uid 0, mkdir -p " + filepath.Dir(db) + " && chown 65534 " + filepath.Dir(db)
			} else {
				giveTo(t, ro, cred)
				if err := os.Chmod(ro, 0o555); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(ro, 0o700) })
			}
			as := runningAs(t, dir, cred)
			run := as(newCatchup(t, db, "", "run", "--task", "m", "--", "true"))
			if code := run.run(t); code != 0 {
				t.Fatalf("run exited %d, want the command's 0: %s", code, run.stderr.String())
			}
			strict := as(newCatchup(t, db, "", "run", "--strict", "--task", "m", "--", "true"))
			if code := strict.run(t); code != 125 {
				t.Errorf("run --strict exited %d, want 125: %s", code, strict.stderr.String())
			}
			scan := as(newCatchup(t, db, "", "scan"))
			if code := scan.run(t); code != 2 {
				t.Errorf("scan exited %d, want 2: %s", code, scan.stderr.String())
			}
			for what, p := range map[string]*catchupProc{"run": run, "run --strict": strict, "scan": scan} {
				out := p.stderr.String()
				if what != "scan" { // the line about the ledger; another says the fire's note cannot be kept either
					for _, l := range strings.Split(out, "\n") {
						if strings.Contains(l, "ledger unavailable") {
							out = l
						}
					}
				}
				checkFix(t, what, out, ro, fix)
				if strings.Contains(out, ".new-") {
					t.Errorf("%s names the temporary file of the new ledger: %q", what, out)
				}
			}
		})
	}
}
