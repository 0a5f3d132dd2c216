package catchup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/internal/filetrust"
)

// TestOpenCrontab pins cron's rules (cronie's check_open, plus the
// directories on the way) on real files with real owners. The system and
// spool directories are pointed at temporary ones.
func TestOpenCrontab(t *testing.T) {
	// Serial: it points crontab.SystemCrontab, crontab.SystemDir and spoolDirs elsewhere (setCronDirs).
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives files to other users")
	}
	const nobody, daemon = 65534, 1
	tests := map[string]struct {
		setup    func(t *testing.T, etc, spool string) string // returns the crontab's path
		scanUID  int
		refused  string // part of the reason; "" = accepted
		wantUser string
	}{
		"system crontab of root": {setup: func(t *testing.T, etc, _ string) string {
			return write(t, filepath.Join(etc, "cron.d", "job"), 0o644, 0)
		}},
		"system crontab owned by another user": {setup: func(t *testing.T, etc, _ string) string {
			return write(t, filepath.Join(etc, "cron.d", "job"), 0o644, nobody)
		}, refused: "owned by uid 65534 (nobody), not root: a system crontab must be root's"},
		"system crontab writable by its group": {setup: func(t *testing.T, etc, _ string) string {
			return write(t, filepath.Join(etc, "crontab"), 0o664, 0)
		}, refused: "it is writable by others (mode 0664)"},
		"system crontab in a directory another user owns": {setup: func(t *testing.T, etc, _ string) string {
			chown(t, filepath.Join(etc, "cron.d"), nobody)
			return write(t, filepath.Join(etc, "cron.d", "job"), 0o644, 0)
		}, refused: "cron.d is owned by uid 65534 (nobody), who could replace it"},
		"system crontab in a sticky world-writable directory": {setup: func(t *testing.T, etc, _ string) string {
			os.Chmod(filepath.Join(etc, "cron.d"), 0o777|os.ModeSticky)
			return write(t, filepath.Join(etc, "cron.d", "job"), 0o644, 0)
		}, refused: "cron.d is writable by others (mode 1777)"},
		"system crontab through a symlink into an unsafe directory": {setup: func(t *testing.T, etc, _ string) string {
			open := filepath.Join(filepath.Dir(etc), "open")
			os.Mkdir(open, 0o777)
			os.Chmod(open, 0o777)
			write(t, filepath.Join(open, "job"), 0o644, 0)
			link := filepath.Join(etc, "cron.d", "job")
			os.Symlink(filepath.Join(open, "job"), link)
			return link
		}, refused: "open is writable by others (mode 0777)"},
		"spool crontab of its user": {setup: func(t *testing.T, _, spool string) string {
			return write(t, filepath.Join(spool, "nobody"), 0o600, nobody)
		}, wantUser: "nobody"},
		"spool crontab written by root for its user": {setup: func(t *testing.T, _, spool string) string {
			return write(t, filepath.Join(spool, "nobody"), 0o600, 0)
		}, wantUser: "nobody"},
		"spool crontab of a deleted user, owned by its old uid": {setup: func(t *testing.T, _, spool string) string {
			return write(t, filepath.Join(spool, "h-deleted-user"), 0o600, 54321)
		}, refused: "h-deleted-user"},
		"spool crontab of a deleted user, its old uid reused": {setup: func(t *testing.T, _, spool string) string {
			return write(t, filepath.Join(spool, "h-deleted-user"), 0o600, nobody)
		}, refused: "h-deleted-user"},
		"spool crontab owned by another user": {setup: func(t *testing.T, _, spool string) string {
			return write(t, filepath.Join(spool, "nobody"), 0o600, daemon)
		}, refused: "it is nobody's crontab but owned by uid 1 (daemon)"},
		"spool crontab of root's reached through a symlink is its user's": {setup: func(t *testing.T, etc, spool string) string {
			p := write(t, filepath.Join(spool, "nobody"), 0o600, 0)
			link := filepath.Join(filepath.Dir(etc), "link")
			os.Symlink(p, link)
			return link
		}, wantUser: "nobody"},
		"symlink into the spool under another user's name": {setup: func(t *testing.T, _, spool string) string {
			p := write(t, filepath.Join(spool, "nobody"), 0o600, 0)
			os.Symlink(p, filepath.Join(spool, "daemon"))
			return filepath.Join(spool, "daemon")
		}, refused: "it is reached as daemon's crontab, but it is nobody's"},
		"symlink owned by another user": {setup: func(t *testing.T, etc, _ string) string {
			p := write(t, filepath.Join(filepath.Dir(etc), "mine"), 0o644, 0)
			link := filepath.Join(filepath.Dir(etc), "link")
			os.Symlink(p, link)
			chown(t, link, nobody)
			return link
		}, refused: "link is a symlink owned by uid 65534 (nobody), who could point it at another file"},
		"symlinked directory owned by another user": {setup: func(t *testing.T, etc, _ string) string {
			top := filepath.Dir(etc)
			os.Mkdir(filepath.Join(top, "d"), 0o755)
			write(t, filepath.Join(top, "d", "mine"), 0o644, 0)
			os.Symlink("d", filepath.Join(top, "dlink"))
			chown(t, filepath.Join(top, "dlink"), nobody)
			return filepath.Join(top, "dlink", "mine")
		}, refused: "dlink is a symlink owned by uid 65534 (nobody)"},
		"symlink of the scanning user": {setup: func(t *testing.T, etc, _ string) string {
			p := write(t, filepath.Join(filepath.Dir(etc), "mine"), 0o644, 0)
			link := filepath.Join(filepath.Dir(etc), "link")
			os.Symlink(p, link)
			chown(t, link, nobody)
			return link
		}, scanUID: nobody, wantUser: "nobody"},
		"user crontab belongs to its owner": {setup: func(t *testing.T, etc, _ string) string {
			return write(t, filepath.Join(filepath.Dir(etc), "mine"), 0o644, daemon)
		}, wantUser: "daemon"},
		"user crontab of root holds the scanning user's lines": {setup: func(t *testing.T, etc, _ string) string {
			return write(t, filepath.Join(filepath.Dir(etc), "mine"), 0o644, 0)
		}, scanUID: nobody, wantUser: "nobody"},
		"user crontab with a second hard link": {setup: func(t *testing.T, etc, _ string) string {
			p := write(t, filepath.Join(filepath.Dir(etc), "mine"), 0o644, daemon)
			os.Link(p, p+".other")
			return p
		}, refused: "it has 2 hard links"},
		"not a regular file": {setup: func(t *testing.T, etc, _ string) string {
			p := filepath.Join(filepath.Dir(etc), "fifo")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, refused: "not a regular file"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			os.Chmod(top, 0o755)
			etc, spool := filepath.Join(top, "etc"), filepath.Join(top, "spool")
			for _, d := range []string{filepath.Join(etc, "cron.d"), spool} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			defer setCronDirs(filepath.Join(etc, "crontab"), filepath.Join(etc, "cron.d"), spool)()
			path := tc.setup(t, etc, spool)
			f, err := OpenCrontab(path, tc.scanUID)
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (!errors.Is(err, filetrust.ErrRefused) || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("got %v, want a refusal saying %q", err, tc.refused)
			case tc.refused != "":
				if !strings.Contains(err.Error(), "fix: ") || !strings.Contains(err.Error(), "crontab "+path) {
					t.Errorf("the refusal must name the file and the fix: %v", err)
				}
			case f.User != tc.wantUser || string(f.Data) != "0 * * * * catchup run --task t -- true\n":
				t.Errorf("user %q data %q, want user %q", f.User, f.Data, tc.wantUser)
			}
		})
	}
}

func write(t *testing.T, path string, mode os.FileMode, uid int) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("0 * * * * catchup run --task t -- true\n"), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, mode)
	chown(t, path, uid)
	return path
}

func chown(t *testing.T, path string, uid int) {
	t.Helper()
	if err := os.Lchown(path, uid, uid); err != nil {
		t.Fatal(err)
	}
}

// setCronDirs points the system and spool locations elsewhere; the
// returned func restores them.
func setCronDirs(ct, crond, spool string) func() {
	oc, od, os := crontab.SystemCrontab, crontab.SystemDir, spoolDirs
	crontab.SystemCrontab, crontab.SystemDir, spoolDirs = ct, crond, []string{spool}
	return func() { crontab.SystemCrontab, crontab.SystemDir, spoolDirs = oc, od, os }
}
