package catchup

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadToWrapOpensNothingElse: crontab wrap FILE (root wrapping a
// user's file, named in that user's directory) refused what is not a
// regular file only after opening it: a symlink the user put there to a
// device whose open acts (/dev/watchdog arms the host's reboot) had root
// open it. It now looks at the file through a descriptor that opens
// nothing (O_PATH), and opens only a regular file. A FIFO stands for the
// device here: it must not be opened, directly or through a symlink.
func TestReadToWrapOpensNothingElse(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "crontab")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, fifo, unix.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		if _, _, err := ReadToWrap(path); err == nil {
			t.Errorf("ReadToWrap(%s) read a FIFO", path)
		}
	}
	if n, _ := unix.Read(in, make([]byte, 4096)); n > 0 {
		t.Error("ReadToWrap opened the FIFO before refusing it")
	}
}
