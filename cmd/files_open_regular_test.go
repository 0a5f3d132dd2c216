package cmd

import (
	"testing"

	"github.com/catchup/catchup/internal/watchfifo"
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
		"ping file":       func(path string) error { _, _, err := readPingFile(path); return err },
	}
	for name, read := range readers {
		t.Run(name, func(t *testing.T) {
			fifo, link, opened := watchfifo.New(t, "link")
			for _, path := range []string{fifo, link} {
				if err := read(path); err == nil {
					t.Errorf("read a FIFO through %s", path)
				}
			}
			if opened() {
				t.Error("opened the FIFO before refusing it")
			}
		})
	}
}
