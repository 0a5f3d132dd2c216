package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustedWorkDir: a replay's registered working directory is used only
// while no other user controls it or a directory above it.
func TestTrustedWorkDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give directories to another user")
	}
	const other = 54321
	tests := map[string]struct {
		setup  func(t *testing.T, top, dir string) string // returns the registered path
		refuse string                                     // "" = trusted
	}{
		"own directory": {setup: func(_ *testing.T, _, dir string) string { return dir }},
		"under a sticky directory": {setup: func(t *testing.T, top, dir string) string {
			mustDo(t, os.Chmod(top, os.ModeSticky|0o777))
			return dir
		}},
		"gone": {setup: func(t *testing.T, _, dir string) string { mustDo(t, os.Remove(dir)); return dir },
			refuse: "it cannot be used: no such file or directory"},
		"owned by another user": {setup: func(t *testing.T, _, dir string) string {
			mustDo(t, os.Chown(dir, other, -1))
			return dir
		}, refuse: "it is owned by uid 54321"},
		"writable by a group of others": {setup: func(t *testing.T, _, dir string) string {
			mustDo(t, os.Chown(dir, -1, other))
			mustDo(t, os.Chmod(dir, 0o775))
			return dir
		}, refuse: "it is writable by others (mode 0775)"},
		"writable by its owner's private group (root's, umask 002)": {setup: func(t *testing.T, _, dir string) string {
			mustDo(t, os.Chmod(dir, 0o775))
			return dir
		}},
		"sticky itself, writable by all": {setup: func(t *testing.T, _, dir string) string {
			mustDo(t, os.Chmod(dir, os.ModeSticky|0o777))
			return dir
		}, refuse: "it is writable by others (mode 1777)"},
		"under a directory all can write": {setup: func(t *testing.T, top, dir string) string {
			mustDo(t, os.Chmod(top, 0o777))
			return dir
		}, refuse: "top is writable by others (mode 0777)"},
		"under another user's directory": {setup: func(t *testing.T, top, dir string) string {
			mustDo(t, os.Chown(top, other, -1))
			return dir
		}, refuse: "top is owned by uid 54321"},
		"through another user's symlink": {setup: func(t *testing.T, top, dir string) string {
			link := filepath.Join(top, "link")
			mustDo(t, os.Symlink(dir, link))
			mustDo(t, os.Lchown(link, other, -1))
			return link
		}, refuse: "symlink owned by uid 54321"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			top := filepath.Join(t.TempDir(), "top")
			dir := filepath.Join(top, "work")
			mustDo(t, os.MkdirAll(dir, 0o755))
			mustDo(t, os.Chmod(filepath.Dir(top), 0o755))
			path := tc.setup(t, top, dir)
			err := trustedWorkDir(path, 0)
			switch {
			case tc.refuse == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
				t.Errorf("err = %v; want refused: %s", err, tc.refuse)
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
