package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsTextfileUnwritableDirSaysTheFix: metrics --textfile into a
// directory this user cannot write (node_exporter's, root's) exits 2 with
// one line naming the file, the directory and the fix, never the name of
// the temporary file it could not create (`open /dir/.x.prom.tmp123:
// permission denied`, which named no fix).
func TestMetricsTextfileUnwritableDirSaysTheFix(t *testing.T) {
	db, textfiles, as := nobodysLedgerBesideRoots(t) // node_exporter's directory, root's
	prom := filepath.Join(textfiles, "catchup.prom")
	m := as(newCatchup(t, db, "2026-03-02T03:00:00Z", "metrics", "--textfile", prom))
	if code := m.run(t); code != 2 {
		t.Errorf("metrics exited %d, want 2", code)
	}
	out := m.stderr.String()
	checkOneLine(t, "metrics", out, prom)
	for _, want := range []string{textfiles, "permission denied", "fix: "} {
		if !strings.Contains(out, want) {
			t.Errorf("metrics does not say %q: %q", want, out)
		}
	}
	if strings.Contains(out, ".tmp") {
		t.Errorf("metrics names its temporary file: %q", out)
	}
	if _, err := os.Stat(prom); err == nil {
		t.Errorf("%s was written", prom)
	}
}
