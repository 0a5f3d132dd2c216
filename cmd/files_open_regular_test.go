package cmd

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFilesOpenNothingElse: CATCHUP_DB_FILE and --ping-file refused what
// is not a regular file only after opening it: a symlink swapped, in a
// directory another user controls, to a device whose open acts
// (/dev/watchdog arms the reboot) had catchup open it. They now look
// through a descriptor that opens nothing (O_PATH) and open only a regular
// file. A FIFO stands for the device: it must not be opened, directly or
// through a symlink.
func TestFilesOpenNothingElse(t *testing.T) {
	readers := map[string]func(path string) error{
		"CATCHUP_DB_FILE": func(path string) error { _, err := readLedgerFile(path); return err },
		"ping file":       func(path string) error { _, err := readPingFile(path); return err },
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link")
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
				if err := read(path); err == nil {
					t.Errorf("read a FIFO through %s", path)
				}
			}
			if n, _ := unix.Read(in, make([]byte, 4096)); n > 0 {
				t.Error("opened the FIFO before refusing it")
			}
		})
	}
}
