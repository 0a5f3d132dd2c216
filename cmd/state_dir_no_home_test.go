package cmd

import (
	"strings"
	"testing"
)

// TestStateDirNoHomeNamesTheFixes: a plain user's fire without $HOME (env
// -i, a service without User=) is refused with a fix naming every way out:
// HOME, CATCHUP_STATE_DIR (or XDG_STATE_HOME), and --db / CATCHUP_DB.
func TestStateDirNoHomeNamesTheFixes(t *testing.T) {
	_, err := stateDirOf(1000, func(string) string { return "" })
	if err == nil {
		t.Fatal("stateDirOf without HOME: no error")
	}
	for _, want := range []string{"$HOME is not defined", "fix: ", "set HOME", "CATCHUP_STATE_DIR", "XDG_STATE_HOME", "--db", "CATCHUP_DB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("stateDirOf without HOME: %q, want it to name %q", err, want)
		}
	}
}
