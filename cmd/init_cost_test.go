package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// TestReleasedStart checks catchup's start, which every command and every
// fire pays, on catchup built as go build builds it (with its symbols,
// which go tool nm reads). The release's -trimpath and CGO_ENABLED=0
// change neither the init order nor what the linker keeps, but they
// compile every package anew where this build is the one docstest and the
// tests' own packages have cached: 115 s of a fresh guest's CI.
func TestReleasedStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds catchup")
	}
	bin := filepath.Join(t.TempDir(), "catchup")
	build := exec.Command("go", "build", "-o", bin, "github.com/catchup/catchup")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Run("linker drops unused methods", func(t *testing.T) { linkerDropsUnusedMethods(t, bin) })
	t.Run("own init allocates little", func(t *testing.T) { ownInitAllocatesLittle(t, bin) })
	t.Run("stack reserved before the deep inits", func(t *testing.T) { stackReservedFirst(t, bin) })
	t.Run("heap mapped ahead from the new stack", func(t *testing.T) { heapMappedAfterStack(t, bin) })
}

// heapMappedAfterStack: internal/prefault's init maps in the heap above
// the stack internal/deepstack's init has just taken from the heap's top,
// so it must run right after it, before any package that allocates.
func heapMappedAfterStack(t *testing.T, bin string) {
	var order []string
	for _, line := range strings.Split(initTrace(t, bin), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, f[1])
		}
	}
	const stack, heap = "github.com/catchup/catchup/internal/deepstack", "github.com/catchup/catchup/internal/prefault"
	for i, pkg := range order {
		if pkg != stack {
			continue
		}
		if i+1 == len(order) || order[i+1] != heap {
			t.Fatalf("%s is not initialized right after %s (keep both free of imports; is prefault still imported by main.go?):\n%s", heap, stack, strings.Join(order, "\n"))
		}
		return
	}
	t.Fatalf("%s is not initialized:\n%s", stack, strings.Join(order, "\n"))
}

// stackReservedFirst: internal/deepstack's init grows the main goroutine's
// stack before the packages whose init grows it deep run.
func stackReservedFirst(t *testing.T, bin string) {
	order := map[string]int{}
	for i, line := range strings.Split(initTrace(t, bin), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = i + 1
		}
	}
	first := order["github.com/catchup/catchup/internal/deepstack"]
	if first == 0 {
		t.Fatal("internal/deepstack is not initialized: is it still linked (cmd/run.go)?")
	}
	for _, deep := range []string{"modernc.org/libc", "modernc.org/sqlite/lib", "google.golang.org/protobuf/types/known/timestamppb", "github.com/spf13/cobra"} {
		if at := order[deep]; at != 0 && at < first {
			t.Errorf("%s is initialized before internal/deepstack: keep deepstack free of imports", deep)
		}
	}
}

// initTrace is what GODEBUG=inittrace=1 prints for catchup version.
func initTrace(t *testing.T, bin string) string {
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace strings.Builder
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("catchup version: %v\n%s", err, trace.String())
	}
	return trace.String()
}

// linkerDropsUnusedMethods: the linker leaves out the methods nothing
// calls unless a reachable function looks a method up by a name it cannot
// know at build time. text/template's executor does (its evalField calls
// reflect's MethodByName with a template's field names), and once it is
// linked every exported method of every linked type is kept: 2.6 MB more
// binary, whose pages the start maps (docs/performance-history.md, twentieth
// pass). cobra links the executor only when a usage, help or version
// template is set.
func linkerDropsUnusedMethods(t *testing.T, bin string) {
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	const executor = "text/template.(*state).evalField"
	if strings.Contains(string(out), executor) {
		t.Errorf("catchup links %s, which keeps every exported method of every type linked: set no cobra template (root.SetVersionTemplate and the like); print with a function instead", executor)
	}
}

// ownInitAllocatesLittle: catchup's own packages build nothing much
// before main: a query put together from pieces, a regexp, a table is
// built on first use (sync.OnceValue), a constant, or a switch rather than
// a package-level map. The store's prune and latest-run queries, built
// eagerly, were 245 KB of a 490 KB init (docs/performance-history.md,
// twentieth pass); the maps, the upsert's fmt.Sprintf and a regexp were
// 26 KB in 250 allocations, now 8 KB in 113 (docs/performance.md).
func ownInitAllocatesLittle(t *testing.T, bin string) {
	trace := initTrace(t, bin)
	const most, mostAllocs = 12 << 10, 160
	total, allocs, seen := 0, 0, 0
	var each []string
	for _, line := range strings.Split(trace, "\n") {
		// init PKG @0.5 ms, 0.01 ms clock, 584 bytes, 9 allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/catchup/catchup") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		k, errAllocs := strconv.Atoi(f[9])
		if err != nil || errAllocs != nil || f[8] != "bytes," {
			t.Fatalf("unexpected inittrace line: %q", line)
		}
		seen++
		total += n
		allocs += k
		each = append(each, fmt.Sprintf("%s %d B %d allocs", f[1], n, k))
	}
	if seen == 0 {
		t.Fatalf("no init of catchup's packages in the trace:\n%s", trace)
	}
	if total > most || allocs > mostAllocs {
		t.Errorf("catchup's own packages allocate %d bytes in %d allocations before main (at most %d in %d): build what they build on first use, "+
			"use a constant or a switch rather than a package-level map\n%s",
			total, allocs, most, mostAllocs, strings.Join(each, "\n"))
	}
}
