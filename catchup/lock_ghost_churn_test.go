package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestLockGhostBesideLockChurn: a deleted lock file still held is found
// however other locks on the host come and go meanwhile (/proc/locks is
// read a page at a time; a lock let go before the page being read moves
// the rest of the list up, and one line is never seen).
func TestLockGhostBesideLockChurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.lock")
	ghost, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer ghost.Close()
	if err := syscall.Flock(int(ghost.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	self, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	fi, err := self.Stat()
	if err != nil {
		t.Fatal(err)
	}
	// Other locks, newer than the ghost's (listed before it), that come and go.
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		var fs []*os.File
		for i := 0; i < 100; i++ {
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("o%d-%d", g, i)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fs = append(fs, f)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				for _, f := range fs {
					syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
				}
				for _, f := range fs {
					syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				}
			}
		}()
	}
	misses := 0
	const tries = 200
	for i := 0; i < tries; i++ {
		if !deletedLockHeld(path, fi) {
			misses++
		}
	}
	stop.Store(true)
	wg.Wait()
	if misses > 0 {
		t.Fatalf("the held deleted lock file was missed %d times in %d", misses, tries)
	}
}
