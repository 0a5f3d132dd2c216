package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonLinePingFileReadableWarns: a daemon line's --ping-file that
// other users can read is used, with one warning naming the file and the
// fix, never the URL (a token), as run warns of it; a file of mode 600
// warns of nothing. Before, the daemon used it without a word.
func TestDaemonLinePingFileReadableWarns(t *testing.T) {
	for name, tc := range map[string]struct {
		mode os.FileMode
		warn bool
	}{
		"world-readable": {0o644, true},
		"private":        {0o600, false},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ping.url")
			if err := os.WriteFile(file, []byte("https://hc.example/tok3n-secret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(file, tc.mode); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			u, err := daemonLinePing("", file, "/", nil, func(w string) { warnings = append(warnings, w) })
			if err != nil || u != "https://hc.example/tok3n-secret" {
				t.Fatalf("daemonLinePing = %q, %v; want the file's URL", u, err)
			}
			if !tc.warn {
				if len(warnings) > 0 {
					t.Fatalf("warnings %q for a file of mode %04o", warnings, tc.mode)
				}
				return
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], file) || !strings.Contains(warnings[0], "chmod 600 "+file) ||
				strings.Contains(warnings[0], "tok3n") {
				t.Fatalf("warnings %q: want one naming %s and chmod 600, never the URL", warnings, file)
			}
		})
	}
}
