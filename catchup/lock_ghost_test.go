package catchup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLockShadowedByADeletedOne: a task's lock file deleted (its directory
// removed) while a holder keeps it is not taken over by a new file of the
// same path until that holder lets go; in one process too (the daemon's
// fires). A lock file found clean is marked vetted and not checked again.
func TestLockShadowedByADeletedOne(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "locks")
	uid := os.Geteuid()
	take := func(name string) (*taskLock, bool) {
		t.Helper()
		l, err := openTaskLock(dir, "t", uid)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ok, err := l.tryLock()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return l, ok
	}
	a, ok := take("first")
	if !ok {
		t.Fatal("first lock: not taken")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "t.lock")); err != nil || string(b) != vettedMark {
		t.Fatalf("first lock file = %q, %v; want it marked vetted", b, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	b, ok := take("second, beside the deleted one")
	if ok {
		t.Fatal("a new lock file was taken while the deleted one is held")
	}
	b.close()
	a.close()
	c, ok := take("third, the deleted one let go")
	defer c.close()
	if !ok {
		t.Fatal("the new lock file is refused once the deleted one is let go")
	}
}
