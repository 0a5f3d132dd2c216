package sqlite_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// TestLedgerOnAFileSystemTurnedReadOnly: the ext4 file system holding the
// ledger meets an error and the kernel makes it read-only (errors=remount-ro;
// since Linux 6.x an "emergency" read-only state in which the mount still
// says rw and access(2) still says writable). Before, a catchup that had the
// ledger open said only `disk I/O error` or `sync the ledger's WAL:
// input/output error`, and the next one's open `attempt to write a readonly
// database`, with the fix "their owner or mode" (root owns them, mode 0600).
// Each now names the read-only file system and the fix.
func TestLedgerOnAFileSystemTurnedReadOnly(t *testing.T) {
	mnt, trigger := readOnlyOnDemand(t)
	path := filepath.Join(mnt, "ledger.db")
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, err := s.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: t0, Trigger: store.TriggerSchedule,
		StartedAt: t0, Host: "h"}, Register: &store.Task{Name: "t", Schedule: "* * * * *", TZ: "UTC",
		Argv: []string{"true"}, RegisteredAt: t0, UpdatedAt: t0}})
	if err != nil || !id.Claimed {
		t.Fatalf("claim: %+v, %v", id, err)
	}
	if err := os.WriteFile(trigger, []byte("catchup test\n"), 0); err != nil {
		t.Skipf("cannot make the file system read-only: %v", err)
	}
	const want = "is on a read-only file system"
	err = s.Finish(ctx, id.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: t0.Add(time.Second)})
	if err == nil {
		t.Fatal("the outcome was recorded on a read-only file system")
	}
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "remount it read-write") {
		t.Errorf("the open ledger's write said %q; want it to say %q and the fix", err, want)
	}
	_, err = s.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: t0.Add(time.Minute),
		Trigger: store.TriggerSchedule, StartedAt: t0.Add(time.Minute), Host: "h"}})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the open ledger's next claim said %v; want it to say %q", err, want)
	}
	s2, err := sqlite.Open(ctx, path)
	if err == nil {
		_, err = s2.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: t0.Add(2 * time.Minute),
			Trigger: store.TriggerSchedule, StartedAt: t0.Add(2 * time.Minute), Host: "h"}})
		s2.Close()
	}
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "owner or mode") {
		t.Errorf("a new open's claim said %v; want it to say %q, not to fix an owner or mode", err, want)
	}
}

// readOnlyOnDemand mounts a small ext4 file system (root, a loop device)
// with errors=remount-ro and returns its mount point and the file whose
// write makes the kernel take it for failed, and so read-only.
func readOnlyOnDemand(t *testing.T) (mnt, trigger string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a loop device needs root")
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "ext4.img")
	mnt = filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) (string, error) {
		out, err := exec.Command(name, args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := run("truncate", "-s", "16M", img); err != nil {
		t.Skipf("truncate: %v %s", err, out)
	}
	if out, err := run("mkfs.ext4", "-q", img); err != nil {
		t.Skipf("mkfs.ext4: %v %s", err, out)
	}
	dev, err := run("losetup", "-f", "--show", img)
	if err != nil {
		t.Skipf("losetup: %v %s", err, dev)
	}
	t.Cleanup(func() { run("losetup", "-d", dev) })
	if out, err := run("mount", "-o", "errors=remount-ro", dev, mnt); err != nil {
		t.Skipf("mount: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := run("umount", mnt); err != nil {
			t.Errorf("umount %s: %v %s", mnt, err, out)
		}
	})
	if err := os.Chmod(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	trigger = filepath.Join("/sys/fs/ext4", filepath.Base(dev), "trigger_fs_error")
	if _, err := os.Stat(trigger); err != nil {
		t.Skipf("this kernel cannot fail an ext4 file system on demand: %v", err)
	}
	return mnt, trigger
}
