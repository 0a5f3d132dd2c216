package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCronDirOpensOnlyWhatItListed: root's scan reads the files beside a
// crontab in a cron.d directory that may be a user's (~/cron.d): listed,
// then opened. The user swaps the directory for a symlink to another (to
// /dev, where a file of the name listed is a device whose open acts:
// /dev/watchdog arms the host's reboot), and back, again and again. Each
// file was opened by its path, through the directory as swapped: root
// opened the FIFO that stands for the device here. The directory is now
// opened once, each file reached from it without following a symlink and
// opened only once it is seen to be a regular file (O_PATH first, which
// opens nothing): nothing but a regular file is ever opened.
func TestCronDirOpensOnlyWhatItListed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	devs := filepath.Join(dir, "devs")
	if err := os.Mkdir(devs, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(devs, "watchdog")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
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
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	line := "0 * * * * catchup run --task t -- /opt/job.sh\n"
	for name, text := range map[string]string{"jobs": line, "watchdog": "0 * * * * /opt/job.sh\n"} {
		if err := os.WriteFile(filepath.Join(real, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cronD := filepath.Join(dir, "cron.d")
	if err := os.Symlink(real, cronD); err != nil {
		t.Fatal(err)
	}
	stop, swapped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			for j, to := range []string{devs, real} {
				link := filepath.Join(dir, fmt.Sprintf("l%d.%d", i, j))
				if os.Symlink(to, link) != nil || os.Rename(link, cronD) != nil {
					return
				}
			}
		}
	}()
	defer func() { close(stop); <-swapped }()
	buf := make([]byte, 4096)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		CrontabBackups(filepath.Join(cronD, "jobs"), line, false)
		if n, _ := unix.Read(in, buf); n > 0 {
			t.Fatal("the FIFO in the directory swapped in after the listing was opened")
		}
	}
}
