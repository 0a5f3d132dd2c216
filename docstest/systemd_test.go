package docstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// unitBody is a unit file without its comments and blank lines.
func unitBody(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// unitValues are the values of key= in a unit body, in order.
func unitValues(body, key string) []string {
	var vs []string
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// TestSystemdUnits: the packaged units wait for the network (a shared
// PostgreSQL ledger), retry a boot scan that could not reach it a bounded
// number of times, and are what docs/recipes.md shows.
func TestSystemdUnits(t *testing.T) {
	svc := unitBody(t, "../scripts/systemd/catchup-scan.service")
	timer := unitBody(t, "../scripts/systemd/catchup-scan.timer")
	has := func(key, want string) bool {
		for _, v := range unitValues(svc, key) {
			if strings.Contains(" "+v+" ", " "+want+" ") {
				return true
			}
		}
		return false
	}
	for _, kv := range [][2]string{
		{"Wants", "network-online.target"}, {"After", "network-online.target"},
		{"After", "time-sync.target"}, {"Before", "cron.service"},
		{"Restart", "on-failure"}, {"RestartPreventExitStatus", "1"},
	} {
		if !has(kv[0], kv[1]) {
			t.Errorf("catchup-scan.service: no %s=%s", kv[0], kv[1])
		}
	}
	if has("Wants", "time-sync.target") {
		t.Errorf("catchup-scan.service: Wants=time-sync.target: a passive target is ordered after, never pulled in")
	}
	// The retries must be over before the timer's first start, or the
	// timer's start is refused by the start limit.
	window, burst := unitValues(svc, "StartLimitIntervalSec"), unitValues(svc, "StartLimitBurst")
	boot := unitValues(timer, "OnBootSec")
	if len(window) != 1 || len(burst) != 1 || len(boot) != 1 {
		t.Fatalf("want one StartLimitIntervalSec=, StartLimitBurst= and OnBootSec=, got %v %v %v", window, burst, boot)
	}
	// systemd spells minutes "min", Go "m".
	w, err1 := time.ParseDuration(strings.ReplaceAll(window[0], "min", "m"))
	b, err2 := time.ParseDuration(strings.ReplaceAll(boot[0], "min", "m"))
	if err1 != nil || err2 != nil || w >= b {
		t.Errorf("StartLimitIntervalSec=%s must be shorter than the timer's OnBootSec=%s", window[0], boot[0])
	}

	recipes, err := os.ReadFile("../docs/recipes.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile("(?s)```ini\n(.*?)```").FindAllStringSubmatch(string(recipes), -1) {
		f := filepath.Join(t.TempDir(), "block")
		if err := os.WriteFile(f, []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		shown[unitBody(t, f)] = true
	}
	for name, body := range map[string]string{"catchup-scan.service": svc, "catchup-scan.timer": timer} {
		if !shown[body] {
			t.Errorf("docs/recipes.md does not show %s as shipped:\n%s", name, body)
		}
	}

	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Log("systemd-analyze not installed: units not verified")
		return
	}
	dir := t.TempDir()
	raw, err := os.ReadFile("../scripts/systemd/catchup-scan.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(string(raw), "/usr/bin/catchup", "/bin/true")
	if err := os.WriteFile(filepath.Join(dir, "catchup-scan.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	rawTimer, err := os.ReadFile("../scripts/systemd/catchup-scan.timer")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "catchup-scan.timer"), rawTimer, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", "--man=no",
		filepath.Join(dir, "catchup-scan.service"), filepath.Join(dir, "catchup-scan.timer")).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// execStartPre is an ExecStartPre= whose command has no leading "-".
var execStartPre = regexp.MustCompile("ExecStartPre=[^-`\\s]")

// TestExecStartPreIgnoresFailure: no doc or unit recommends ExecStartPre=
// without "-": in cron's unit, a scan exiting 1 or 2 would then keep cron,
// and every cron job on the host, from starting.
func TestExecStartPreIgnoresFailure(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	units, _ := filepath.Glob("../scripts/systemd/*")
	files = append(append(files, "../README.md"), units...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := execStartPre.FindString(string(b)); m != "" {
			t.Errorf("%s: %q: want ExecStartPre=-/usr/bin/catchup scan ...", f, m)
		}
	}
}
