package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadZoneFileOpensOnlyWhatItChecked: a zone spelled as a path names a
// file its user controls (a line of their crontab, read by root's scan),
// who can swap it between the check that it is a regular file and the
// open: a fresh regular file, then a symlink to a FIFO (the stand-in for
// a device that acts on an open, /dev/watchdog arming the host's reboot),
// again and again. ReadZoneFile stat'ed the path, then opened it by name
// again, following the swapped link: root opened the FIFO. It now opens
// the file once, without opening what it names (O_PATH), checks that, and
// reads it through that descriptor: a swapped link is never opened.
func TestReadZoneFileOpensOnlyWhatItChecked(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan struct{})
	go func() {
		// Blocks until a reader opens the FIFO.
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_CLOEXEC, 0); err == nil {
			syscall.Close(fd)
			close(opened)
		}
	}()
	t.Cleanup(func() { // unblock the writer: its reader
		if fd, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0); err == nil {
			syscall.Close(fd)
		}
	})
	path := filepath.Join(dir, "zone")
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			file, link := filepath.Join(dir, fmt.Sprintf("f%d", i)), filepath.Join(dir, fmt.Sprintf("l%d", i))
			if os.WriteFile(file, []byte("TZif2 a zone file"), 0o600) != nil || os.Rename(file, path) != nil ||
				os.Symlink(fifo, link) != nil || os.Rename(link, path) != nil {
				return
			}
		}
	}()
	defer func() { close(stop); <-swapped }()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		ReadZoneFile(path)
		select {
		case <-opened:
			t.Fatal("ReadZoneFile opened the FIFO a symlink swapped in after its check pointed to")
		default:
		}
	}
}
