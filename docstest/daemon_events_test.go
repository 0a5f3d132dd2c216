package docstest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDaemonLogEventsDocumented: every event the daemon logs (an "event"
// attribute in the code of cmd and catchup/daemon) is in the contract's
// list of the daemon's log events, so that an operator's log pipeline
// knows each (before, listen, reopen and reopen-failed were logged and
// listed nowhere).
func TestDaemonLogEventsDocumented(t *testing.T) {
	contract, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	_, daemonPart, _ := strings.Cut(string(contract), "\n## catchup daemon\n")
	_, logPart, ok := strings.Cut(daemonPart, "- **Log.**")
	if !ok {
		t.Fatal("docs/contract.md: no - **Log.** item in its catchup daemon section")
	}
	list, _, _ := strings.Cut(logPart, "\n- **")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(list, -1) {
		listed[m[1]] = true
	}
	logged := regexp.MustCompile(`"event", "([a-z-]+)"`)
	var missing []string
	for _, dir := range []string{"../cmd", "../catchup/daemon"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range logged.FindAllStringSubmatch(string(b), -1) {
				if !listed[m[1]] && !slices.Contains(missing, m[1]) {
					missing = append(missing, m[1])
				}
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("events the daemon logs that docs/contract.md's catchup daemon Log item does not list: %s", strings.Join(missing, ", "))
	}
}
