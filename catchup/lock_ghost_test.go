package catchup

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// takeTaskLock opens task t's lock in dir and tries it.
func takeTaskLock(t *testing.T, dir, name string) (*taskLock, bool) {
	t.Helper()
	l, err := openTaskLock(dir, "t", os.Geteuid())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(l.close)
	ok, err := l.tryLock()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l, ok
}

// TestLockShadowedByADeletedOne: a task's lock file deleted (its directory
// removed) while a holder keeps it is not taken over by a new file of the
// same path until that holder lets go; in one process too (the daemon's
// fires). A lock file found clean is marked vetted.
func TestLockShadowedByADeletedOne(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "locks")
	a, ok := takeTaskLock(t, dir, "first")
	if !ok {
		t.Fatal("first lock: not taken")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "t.lock")); err != nil || string(b) != vettedMark {
		t.Fatalf("first lock file = %q, %v; want it marked vetted", b, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	b, ok := takeTaskLock(t, dir, "second, beside the deleted one")
	if ok {
		t.Fatal("a new lock file was taken while the deleted one is held")
	}
	b.close()
	a.close()
	if _, ok := takeTaskLock(t, dir, "third, the deleted one let go"); !ok {
		t.Fatal("the new lock file is refused once the deleted one is let go")
	}
}

// TestLockWaiterMovesToTheNewFile: a fire that waited on a lock file since
// deleted does not take it once its holder is gone: it moves to the file
// the path names now, which a later fire may hold already.
func TestLockWaiterMovesToTheNewFile(t *testing.T) {
	t.Parallel()
	waiterMovesToTheNewFile(t)
}

// TestLockWaiterBesideAnOrphanElsewhere: an unrelated lock kept by a child
// of its gone taker (a job that outlived its catchup, anywhere on the
// host) sends the check the slow way, through every process's
// descriptors; there a waiter's descriptor of the deleted file, which
// holds no lock, does not count as one (seen in CI, where other tests'
// orphans come and go).
func TestLockWaiterBesideAnOrphanElsewhere(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	other := filepath.Join(t.TempDir(), "other.lock")
	sh := exec.Command("sh", "-c", `exec 3>>"$0"; flock -n 3 || exit 1; sleep 120 >/dev/null 2>&1 & echo $!`, other)
	out, err := sh.Output()
	if err != nil {
		t.Fatalf("the orphan's shell: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the orphan's pid %q: %v", out, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	waiterMovesToTheNewFile(t)
}

// waiterMovesToTheNewFile: a holder and a waiter on one lock file, the
// file deleted, the holder gone: a later fire takes the path's new file,
// and the waiter, moved to it, finds it held.
func waiterMovesToTheNewFile(t *testing.T) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "locks")
	a, ok := takeTaskLock(t, dir, "holder")
	if !ok {
		t.Fatal("holder: not taken")
	}
	w, ok := takeTaskLock(t, dir, "waiter")
	if ok {
		t.Fatal("waiter: taken beside its holder")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	a.close()
	if _, ok := takeTaskLock(t, dir, "a later fire"); !ok {
		t.Fatal("a later fire: the new lock file refused, though no one holds the deleted one")
	}
	if ok, err := w.tryLock(); ok || err != nil {
		t.Fatalf("waiter after its holder: %v, %v; want it held by the later fire", ok, err)
	}
}

// TestLockShadowedByAnOrphan: the deleted lock file held by a process
// other than the one that took it (flock(1) takes it for its shell, then
// exits: a job that outlived its catchup) still shadows the new file.
func TestLockShadowedByAnOrphan(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	dir := filepath.Join(t.TempDir(), "locks")
	l, ok := takeTaskLock(t, dir, "creating it")
	if !ok {
		t.Fatal("not taken")
	}
	l.close()
	sh := exec.Command("sh", "-c", `exec 3>>"$0"; flock -n 3 || exit 1; echo locked; exec sleep 120`, filepath.Join(dir, "t.lock"))
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Process.Kill(); sh.Wait() })
	locked := make(chan bool, 1)
	go func() { s, _ := bufio.NewReader(out).ReadString('\n'); locked <- s == "locked\n" }()
	select {
	case ok := <-locked:
		if !ok {
			t.Fatal("the shell did not take the lock")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the shell did not take the lock within 30s")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, ok := takeTaskLock(t, dir, "beside the orphan"); ok {
		t.Fatal("a new lock file was taken while an orphan holds the deleted one")
	}
}
