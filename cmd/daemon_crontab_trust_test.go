package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/catchup/catchup/internal/filetrust"
)

// TestDaemonCrontabTrust: the daemon runs its crontab's lines as itself
// (root, in many containers). A crontab another user could change, in
// place or by renaming a file of theirs over it, would run their commands
// as the daemon's user: it is refused, at start and at every reload.
func TestDaemonCrontabTrust(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give files to another user")
	}
	const other = 54321 // a uid no one here has
	tests := map[string]struct {
		setup  func(t *testing.T, dir, file string)
		refuse string // "" = read
	}{
		"own file, own directories": {setup: func(*testing.T, string, string) {}},
		"file writable by the group": {
			setup:  func(t *testing.T, _, file string) { must(t, os.Chmod(file, 0o664)) },
			refuse: "writable by others"},
		"file owned by another user": {
			setup:  func(t *testing.T, _, file string) { must(t, os.Chown(file, other, -1)) },
			refuse: "owned by uid 54321"},
		"directory owned by another user": {
			setup:  func(t *testing.T, dir, _ string) { must(t, os.Chown(dir, other, -1)) },
			refuse: "its directory"},
		"directory writable by all": {
			setup:  func(t *testing.T, dir, _ string) { must(t, os.Chmod(dir, 0o777)) },
			refuse: "writable by others"},
		"directory above owned by another user": {
			setup:  func(t *testing.T, dir, _ string) { must(t, os.Chown(filepath.Dir(dir), other, -1)) },
			refuse: "owned by uid 54321"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			top := filepath.Join(t.TempDir(), "top")
			dir := filepath.Join(top, "etc")
			must(t, os.MkdirAll(dir, 0o755))
			file := filepath.Join(dir, "crontab")
			must(t, os.WriteFile(file, []byte("* * * * * true\n"), 0o644))
			tc.setup(t, dir, file)
			data, err := readDaemonCrontab(file)
			switch {
			case tc.refuse == "" && (err != nil || string(data) != "* * * * * true\n"):
				t.Errorf("read %q, %v; want the crontab", data, err)
			case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
				t.Errorf("err = %v; want it refused: %s", err, tc.refuse)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCrontabOpenFix: a crontab the daemon cannot open is named with the
// fix: one not there (a mistyped path, a volume not mounted), one its user
// cannot read. A refusal keeps its own fix, and no fix is added twice.
func TestCrontabOpenFix(t *testing.T) {
	const path = "/etc/catchup/crontab"
	refusal := &filetrust.Refusal{Name: "crontab " + path, Reason: "it is not a regular file", Fix: "point the daemon at the crontab file itself"}
	tests := map[string]struct {
		err  error
		want string
	}{
		"not there": {err: fmt.Errorf("crontab %s: %w", path, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOENT}),
			want: "no such file or directory; fix: give --crontab the path of an existing crontab file"},
		"not readable": {err: fmt.Errorf("crontab %s: %w", path, &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}),
			want: "permission denied; fix: let uid 65534"},
		"refused": {err: refusal, want: "refused: it is not a regular file; fix: point the daemon at the crontab file itself"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := crontabOpenFix(tc.err, path, 65534)
			if got == nil || !strings.Contains(got.Error(), tc.want) || strings.Count(got.Error(), "fix:") != 1 {
				t.Errorf("got %v; want %q in it, one fix", got, tc.want)
			}
			if name == "not readable" && !strings.HasSuffix(got.Error(), "which runs the daemon, read /etc/catchup/crontab and search "+
				"its directories (chown 65534 /etc/catchup/crontab, or chmod a+r on a file of root's), or run the daemon as the crontab's owner") {
				t.Errorf("got %v; want the fix naming the uid and the file", got)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("got %v; want it to wrap %v", got, tc.err)
			}
		})
	}
	if crontabOpenFix(nil, path, 0) != nil {
		t.Error("no error: want none")
	}
}
