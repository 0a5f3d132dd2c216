// Package watchfifo gives tests a FIFO that stands for a device whose open
// acts (/dev/watchdog arms the host's reboot), watched for opens: a reader
// that must refuse anything but a regular file must refuse it unopened,
// directly and through a symlink.
package watchfifo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// New makes a FIFO and a symlink to it (named link) in a temporary
// directory; opened reports whether anything opened the FIFO since.
func New(t testing.TB, link string) (fifo, linkPath string, opened func() bool) {
	t.Helper()
	dir := t.TempDir()
	fifo = filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	linkPath = filepath.Join(dir, link)
	if err := os.Symlink(fifo, linkPath); err != nil {
		t.Fatal(err)
	}
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(in) })
	if _, err := unix.InotifyAddWatch(in, fifo, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	return fifo, linkPath, func() bool {
		n, _ := unix.Read(in, make([]byte, 4096))
		return n > 0
	}
}
