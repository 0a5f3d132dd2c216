//go:build unix

package sqlite

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLeftoverCreator is not a test: it is the creator process of
// TestNewLedgerLeftoversRemoved, which it runs, killed while it creates a
// new ledger (its temporary file made, not yet linked into place).
func TestLeftoverCreator(t *testing.T) {
	real := os.Getenv("CATCHUP_TEST_LEFTOVER_CREATOR")
	if real == "" {
		t.Skip("the creator process of TestNewLedgerLeftoversRemoved")
	}
	f, err := createTemp(real)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(f.Name())
	os.Stdin.Read(make([]byte, 1)) // until killed
	os.Exit(1)
}

// A process killed while it creates a new ledger leaves its temporary file
// beside the ledger's path. The next process to create or write the ledger
// removes it once its creator is gone, never while it lives (it may still
// link it into place), nor one of another ledger or of another name.
func TestNewLedgerLeftoversRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")

	// The fault: a creator killed with its temporary file made.
	creator := exec.Command(os.Args[0], "-test.run=^TestLeftoverCreator$", "-test.count=1")
	creator.Env = append(os.Environ(), "CATCHUP_TEST_LEFTOVER_CREATOR="+path)
	stdin, err := creator.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := creator.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := creator.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	defer func() {
		if !reaped {
			creator.Process.Kill()
			creator.Wait()
		}
	}()
	deadline := time.AfterFunc(2*time.Minute, func() { creator.Process.Kill() })
	line, err := bufio.NewReader(out).ReadString('\n')
	deadline.Stop()
	tmp := strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(tmp, dir+"/.ledger.db.new-") {
		t.Fatalf("the creator process made no temporary file within 2 minutes (%q, %v)", line, err)
	}
	writeLeftover(t, tmp+"-journal", time.Hour)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}

	// While its creator lives, it is kept, however old.
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range []string{tmp, tmp + "-journal"} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s removed while its creator (pid %d) lives: %v", filepath.Base(p), creator.Process.Pid, err)
		}
	}

	creator.Process.Signal(syscall.SIGKILL)
	creator.Wait()
	reaped = true
	gone := creator.Process.Pid
	leftover := func(name string) string { return filepath.Join(dir, fmt.Sprintf(name, gone)) }
	kept := []string{
		// Gone, but made a moment ago: a creator in another pid namespace
		// (a container sharing the directory) may still be building it.
		writeLeftover(t, leftover(".ledger.db.new-%d-2"), 0),
		// Another ledger's, and files of other names.
		writeLeftover(t, leftover(".other.db.new-%d-3"), time.Hour),
		writeLeftover(t, leftover("ledger.db.new-%d-4"), time.Hour),
		writeLeftover(t, leftover(".ledger.db.old-%d-5"), time.Hour),
		// This process's own: it lives.
		writeLeftover(t, filepath.Join(dir, fmt.Sprintf(".ledger.db.new-%d-6", os.Getpid())), time.Hour),
	}
	removed := []string{tmp, tmp + "-journal"}

	// A reader changes nothing; a writer removes the creator's leftovers.
	s, err = OpenExisting(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range removed {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed by a reader: %v", filepath.Base(p), err)
		}
	}
	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, p := range removed {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s kept though its creator (pid %d) is gone", filepath.Base(p), gone)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}

	// The creation of a new ledger removes them too.
	path = filepath.Join(dir, "new.db")
	stale := writeLeftover(t, leftover(".new.db.new-%d-7"), time.Hour)
	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s kept by the creation of a new ledger though its creator (pid %d) is gone", filepath.Base(stale), gone)
	}
}

// writeLeftover writes a file at p last modified age ago.
func writeLeftover(t *testing.T, p string, age time.Duration) string {
	t.Helper()
	if err := os.WriteFile(p, []byte("SQLite format 3\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
	return p
}
