package cmd

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoInitHeavyPackagesLinked: every catchup command, `run` included,
// pays the init of every package linked into the binary (Go cannot defer
// it), so packages whose init is costly stay out (docs/performance.md):
// client_golang's prometheus package registers the default collectors
// (and pulls procfs in), and tablewriter's packages pre-warm a pool of
// errors (olekukonko/errors), set up logging and colours in their init
// (v1.1.2-v1.1.5 also presize a 663 KB LRU map in twwidth's): renderTable
// draws the same tables over go-runewidth alone.
func TestNoInitHeavyPackagesLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/catchup/catchup").Output()
	if err != nil {
		t.Skipf("go list -deps: %v", err)
	}
	banned := map[string]string{
		"github.com/prometheus/client_golang/": "write metrics with client_model and expfmt instead",
		"github.com/prometheus/procfs":         "pulled in by client_golang",
		"github.com/olekukonko/":               "draw tables with renderTable (tablewriter is its test reference only)",
		"github.com/fatih/color":               "pulled in by tablewriter",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for prefix, fix := range banned {
			if strings.HasPrefix(pkg, prefix) {
				t.Errorf("catchup links %s, whose init every command pays: %s", pkg, fix)
			}
		}
	}
}
