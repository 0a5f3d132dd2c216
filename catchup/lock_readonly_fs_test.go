package catchup

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLockOnAReadOnlyFileSystem: the file system holding the ledger and its
// lock directory turns read-only (remounted so, or by the kernel after an
// I/O error). A task's lock file made before is still taken, read-only, and
// still keeps another fire out, so that the fire goes on to the ledger and
// says what is wrong with it (a read-only file system, and the fix). Before,
// the open for writing failed, and the fire ran unrecorded saying "the ledger
// is fine; remove or fix what is at the lock file's path".
func TestLockOnAReadOnlyFileSystem(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a read-only bind mount needs root")
	}
	base := t.TempDir()
	rw := filepath.Join(base, "rw")
	made, err := openTaskLock(filepath.Join(rw, "locks"), "t", os.Geteuid())
	if err != nil {
		t.Fatal(err)
	}
	made.close()
	ro := filepath.Join(base, "ro")
	if err := os.Mkdir(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", rw, ro).CombinedOutput(); err != nil {
		t.Skipf("mount --bind: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", ro).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", ro, err, out)
		}
	})
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", ro).CombinedOutput(); err != nil {
		t.Skipf("remount read-only: %v %s", err, out)
	}
	if _, ok := takeTaskLock(t, filepath.Join(ro, "locks"), "read-only"); !ok {
		t.Fatal("the lock on the read-only file system was not taken")
	}
	if _, ok := takeTaskLock(t, filepath.Join(rw, "locks"), "beside"); ok {
		t.Error("the lock taken read-only did not keep another fire out")
	}
	if _, err := openTaskLock(filepath.Join(ro, "locks"), "new", os.Geteuid()); err == nil {
		t.Error("a lock file never made was opened on the read-only file system")
	}
}
