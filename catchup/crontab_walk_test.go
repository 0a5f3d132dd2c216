package catchup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWalkHoldsFewDescriptors: the walk holds a handle for each directory
// it is in, not for every component it went through. A symlink of 4 KB
// ("d/../" 800 times, then the file), which the kernel resolves with no
// descriptor at all, made the walk hold 800 handles at once: under a
// descriptor limit of 256 the crontab could not be opened (EMFILE), and in
// the daemon every other open failed meanwhile.
func TestWalkHoldsFewDescriptors(t *testing.T) {
	// Serial: it lowers this process's RLIMIT_NOFILE and counts its open descriptors.
	top := t.TempDir()
	if err := os.Mkdir(filepath.Join(top, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "tab"), []byte("0 * * * * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(top, "link")
	if err := os.Symlink(strings.Repeat("d/../", 800)+"tab", link); err != nil {
		t.Fatal(err)
	}
	open, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = uint64(len(open) + 256)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	w, err := walkOpen("crontab "+link, link, []int{os.Geteuid()})
	if err != nil {
		t.Fatalf("the walk failed where the kernel resolves the path: %v", err)
	}
	w.fd.Close()
	if want := filepath.Join(top, "tab"); w.real != want {
		t.Errorf("real path %s, want %s", w.real, want)
	}
}

// TestWalkRefusesAFileAsADirectory: "tab/" and "tab/." name a directory,
// and the kernel (so cron) refuses them when tab is a file (ENOTDIR), as
// the path-based resolution did; the walk dropped the trailing "/" and "."
// and read tab.
func TestWalkRefusesAFileAsADirectory(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	tab := filepath.Join(top, "tab")
	if err := os.WriteFile(tab, []byte("0 * * * * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{"trailing slash": "/", "trailing dot": "/.", "slash dot slash": "/./"}
	for name, suffix := range tests {
		t.Run(name, func(t *testing.T) {
			link := filepath.Join(top, strings.ReplaceAll(name, " ", "-"))
			if err := os.Symlink(tab+suffix, link); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{tab + suffix, link} {
				w, err := walkOpen("crontab "+path, path, []int{os.Geteuid()})
				if err == nil {
					w.fd.Close()
					t.Errorf("%s (to %s%s) read a file as a directory", path, tab, suffix)
				} else if !errors.Is(err, syscall.ENOTDIR) {
					t.Errorf("%s: got %v, want ENOTDIR", path, err)
				}
			}
		})
	}
}
