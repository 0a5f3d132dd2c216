package spawn

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRun(t *testing.T) {
	tests := map[string]struct {
		argv []string
		want int
	}{
		"success":           {[]string{"true"}, 0},
		"the command's own": {[]string{"sh", "-c", "exit 3"}, 3},
		"killed by signal":  {[]string{"sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM)},
		"not found":         {[]string{"no-such-command-xyz"}, 127},
		"the lock as fd 3":  {[]string{"sh", "-c", "[ -e /proc/self/fd/3 ] || exit 9"}, 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			lock, err := os.Create(filepath.Join(t.TempDir(), "lock"))
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Close()
			if got := Run(tc.argv, lock); got != tc.want {
				t.Errorf("Run(%q) = %d, want %d", tc.argv, got, tc.want)
			}
		})
	}
}
