package catchup

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAccessAs: accessAs judges a path as the user would (a file behind a
// directory of root's is out of reach, one in a directory everyone may
// enter is not), and no other goroutine of the process ever runs with that
// user's filesystem ids meanwhile: root's own reads of a file only root
// may read never fail, however many checks run beside them.
func TestAccessAs(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it takes another user's filesystem ids")
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	top := t.TempDir()
	for p := top; p != "/"; p = filepath.Dir(p) { // traversable by everyone, as /tmp's test directories are not
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(p, fi.Mode().Perm()|0o005)
		}
	}
	private, open := filepath.Join(top, "private"), filepath.Join(top, "open")
	for _, d := range []string{private, open} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(open, 0o755)
	if err := os.Mkdir(filepath.Join(private, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret, public := filepath.Join(private, "f"), filepath.Join(open, "f")
	for _, f := range []string{secret, public} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mine := filepath.Join(open, "mine")
	if err := os.WriteFile(mine, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		path string
		mode uint32
		want error
	}{
		{"a file behind root's directory", secret, unix.R_OK, unix.EACCES},
		{"a name not there behind root's directory", filepath.Join(private, "none"), unix.R_OK, unix.EACCES},
		{"root's directory", private, unix.X_OK, unix.EACCES},
		{"a directory behind root's", filepath.Join(private, "sub"), unix.X_OK, unix.EACCES},
		{"a file everyone may read", public, unix.R_OK, nil},
		{"a file root alone may read", mine, unix.R_OK, unix.EACCES},
		{"a directory everyone may enter", open, unix.X_OK, nil},
		{"a name not there", filepath.Join(open, "none"), unix.R_OK, unix.ENOENT},
		{"a directory, for a file", open, unix.R_OK, nil},
	} {
		if err := accessAs(c.path, nobody, c.mode); !errors.Is(err, c.want) && !(err == nil && c.want == nil) {
			t.Errorf("%s: accessAs = %v, want %v", c.name, err, c.want)
		}
	}

	var stop atomic.Bool
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := os.ReadFile(mine); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	for range 300 {
		if err := accessAs(mine, nobody, unix.R_OK); !errors.Is(err, unix.EACCES) {
			t.Errorf("accessAs = %v, want permission denied", err)
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("root's reads of its own file failed %d times beside the checks: a thread kept nobody's ids", n)
	}
}
