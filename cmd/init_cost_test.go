package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInitHeavyPackagesLinked: every catchup command, `run` included,
// pays the init of every package linked into the binary (Go cannot defer
// it), so packages whose init is costly stay out (docs/performance.md):
// client_golang's prometheus package registers the default collectors
// (and pulls procfs in), and tablewriter v1.1.2-v1.1.5 presize a 663 KB
// LRU map in twwidth's init (their twcache package); prometheus/common
// v0.73 and later parse OpenMetrics with go-abnf, which links go/parser,
// go/printer and go/doc/comment (about 20 page faults more for every
// command: docs/performance.md).
func TestNoInitHeavyPackagesLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/catchup/catchup").Output()
	if err != nil {
		t.Skipf("go list -deps: %v", err)
	}
	banned := map[string]string{
		"github.com/prometheus/client_golang/":          "write metrics with client_model and expfmt instead",
		"github.com/prometheus/procfs":                  "pulled in by client_golang",
		"github.com/olekukonko/tablewriter/pkg/twcache": "use a tablewriter without the presized width cache (v1.0.9)",
		"github.com/pandatix/go-abnf":                   "use prometheus/common v0.72, whose expfmt does not parse OpenMetrics",
		"go/parser":                                     "pulled in by go-abnf",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for prefix, fix := range banned {
			if strings.HasPrefix(pkg, prefix) {
				t.Errorf("catchup links %s, whose init every command pays: %s", pkg, fix)
			}
		}
	}
}

// TestLinkerKeepsDroppingUnusedMethods: the linker leaves out the methods
// nothing calls unless a reachable function looks a method up by a name
// it cannot know at build time. text/template's executor does (its
// evalField calls reflect's MethodByName with a template's field names),
// and once it is linked every exported method of every linked type is
// kept: 2.6 MB more binary, whose pages every command's start maps
// (docs/performance.md, twentieth pass). cobra links the executor only
// when a usage, help or version template is set.
func TestLinkerKeepsDroppingUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds catchup")
	}
	bin := filepath.Join(t.TempDir(), "catchup")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/catchup/catchup")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	const executor = "text/template.(*state).evalField"
	if strings.Contains(string(out), executor) {
		t.Errorf("catchup links %s, which keeps every exported method of every type linked: set no cobra template (root.SetVersionTemplate and the like); print with a function instead", executor)
	}
}
