package catchup

import (
	"testing"

	"github.com/catchup/catchup/internal/watchfifo"
)

// TestReadToWrapOpensNothingElse: crontab wrap FILE (root wrapping a
// user's file, named in that user's directory) refused what is not a
// regular file only after opening it: a symlink the user put there to a
// device whose open acts (/dev/watchdog arms the host's reboot) had root
// open it. It now looks at the file through a descriptor that opens
// nothing (O_PATH), and opens only a regular file. A FIFO stands for the
// device here: it must not be opened, directly or through a symlink.
func TestReadToWrapOpensNothingElse(t *testing.T) {
	t.Parallel()
	fifo, link, opened := watchfifo.New(t, "crontab")
	for _, path := range []string{fifo, link} {
		if _, _, err := ReadToWrap(path); err == nil {
			t.Errorf("ReadToWrap(%s) read a FIFO", path)
		}
	}
	if opened() {
		t.Error("ReadToWrap opened the FIFO before refusing it")
	}
}
