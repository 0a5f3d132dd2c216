package catchup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStillSeen: a replay's job start takes its working directory for the
// one the scan's check saw, trusted, only while it is the same directory
// with the same owner, group, mode and change time; anything else (made
// writable by others, replaced, gone, or never seen) sends
// it to the full check again.
func TestStillSeen(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		change func(t *testing.T, dir string)
		want   bool
	}{
		"unchanged":               {change: func(*testing.T, string) {}, want: true},
		"made writable by others": {change: func(t *testing.T, dir string) { mustDo(t, os.Chmod(dir, 0o777)) }},
		"replaced": {change: func(t *testing.T, dir string) { // the old one kept: another inode
			mustDo(t, os.Rename(dir, dir+".old"))
			mustDo(t, os.Mkdir(dir, 0o755))
			mustDo(t, os.Chmod(dir, 0o755))
		}},
		"gone":       {change: func(t *testing.T, dir string) { mustDo(t, os.Remove(dir)) }},
		"never seen": {},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "work")
			mustDo(t, os.Mkdir(dir, 0o755))
			mustDo(t, os.Chmod(dir, 0o755)) // whatever the umask
			var seen os.FileInfo
			if tc.change != nil {
				var err error
				if seen, err = checkedWorkDir(dir, os.Geteuid()); err != nil || seen == nil {
					t.Skipf("the test's directory is not trusted here (%v)", err)
				}
				tc.change(t, dir)
			}
			if got := stillSeen(dir, seen); got != tc.want {
				t.Errorf("stillSeen = %v, want %v", got, tc.want)
			}
		})
	}
}
