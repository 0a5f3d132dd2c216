package catchup

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenCrontabThroughASwappedDirectory: a user who owns a directory on
// a crontab's path (one in a sticky /tmp) keeps exchanging it with a
// symlink of theirs to root's directory, so that root's scan resolves the
// path through the directory, opens the file through the symlink, and
// checks the path through the directory and then the symlink again. The
// file read must never be root's file read as root's lines: a cronie spool
// file, root's, holds its user's lines, and a root scan ran them as root.
func TestOpenCrontabThroughASwappedDirectory(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives files to another user")
	}
	const nobody = 65534
	top := t.TempDir()
	os.Chmod(top, 0o755)
	sticky, rootDir := filepath.Join(top, "tmp"), filepath.Join(top, "root")
	for _, d := range []string{sticky, rootDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(sticky, 0o777|os.ModeSticky)
	own, link := filepath.Join(sticky, "own"), filepath.Join(sticky, "link")
	if err := os.Mkdir(own, 0o755); err != nil {
		t.Fatal(err)
	}
	chown(t, own, nobody)
	path := write(t, filepath.Join(own, "jobs"), 0o600, nobody)
	if err := os.WriteFile(filepath.Join(rootDir, "jobs"), []byte("0 * * * * catchup run --task root -- id\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rootDir, link); err != nil {
		t.Fatal(err)
	}
	chown(t, link, nobody)

	stop := keepExchanging(own, link) // nobody's side: the directory and the symlink
	misread, tries := 0, 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && tries < 3000; tries++ {
		f, err := OpenCrontab(path, 0)
		if err == nil && (f.User != "nobody" || string(f.Data) != "0 * * * * catchup run --task t -- true\n") {
			misread++
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if misread > 0 {
		t.Fatalf("%d of %d opens read root's file as %s's crontab, through nobody's symlink", misread, tries, "root")
	}
}

// keepExchanging exchanges the paths a and b (a directory and a symlink,
// say) again and again, as fast as it can, until the returned stop is
// called; stop reports the first error of an exchange.
func keepExchanging(a, b string) (stop func() error) {
	var stopped atomic.Bool
	done := make(chan error, 1)
	go func() {
		for !stopped.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	return func() error {
		stopped.Store(true)
		return <-done
	}
}
