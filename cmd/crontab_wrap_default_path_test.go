package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/catchup/crontab"
)

// TestWrapWarnsCronDefaultPathWithoutCatchup: lines wrapped under no PATH=
// line run with cron's default PATH (/usr/bin:/bin). A catchup built from
// source and installed elsewhere (/usr/local/bin) is not found there: each
// line would exit 127 under cron, every slot missed. wrap warns once,
// naming the fix; a default PATH that holds catchup (the packages install
// /usr/bin/catchup) gets no warning.
func TestWrapWarnsCronDefaultPathWithoutCatchup(t *testing.T) {
	withCatchup := t.TempDir()
	if err := os.WriteFile(filepath.Join(withCatchup, "catchup"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	changes := []crontab.Change{{Line: 1, Task: "a"}, {Line: 2, Task: "b"}, {Line: 4, Task: "c", PathLine: 3, Path: withCatchup}}
	tests := map[string]struct {
		defaultPath string
		want        string // "" for no warning
	}{
		"default PATH without catchup": {defaultPath: t.TempDir(),
			want: "catchup: warning: crontab: the 2 lines wrapped with no PATH= line above them run with cron's default PATH="},
		"default PATH with catchup": {defaultPath: withCatchup},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CATCHUP_CRON_PATH", tc.defaultPath)
			var w strings.Builder
			warnPathWithoutCatchup(&w, "crontab", changes)
			got := w.String()
			switch {
			case tc.want == "" && got != "":
				t.Errorf("warned %q; want nothing", got)
			case tc.want != "" && (!strings.HasPrefix(got, tc.want) || strings.Count(got, "\n") != 1 || !strings.Contains(got, "fix: add a PATH= line")):
				t.Errorf("warned %q; want one line starting %q, with the fix", got, tc.want)
			}
		})
	}
}
