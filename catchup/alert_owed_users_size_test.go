package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUsersOwedAlertReadCapped: root's scan reads an alert owed in another
// user's lock directory (a file that user writes as they like) only when it
// is no larger than a fire's ever is: decoded whole, a file of gigabytes
// took as much of root's memory. A larger one is left unread, and so is one
// with more than one hard link.
func TestUsersOwedAlertReadCapped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, size := range map[string]int{"small": 100, "large": 2 << 20} {
		t.Run(name, func(t *testing.T) {
			body := fmt.Sprintf(`{"task":"t","cmd":"true # %s","host":"h","pid":1,"run":{"id":1,"status":"failed"},"slots":null,"causes":null}`,
				strings.Repeat("a", size))
			file := ".alert-owed.1." + name + ".json"
			if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			h := &userAlertHome{uid: os.Getuid(), dir: dir}
			a, err := h.read(fd, file)
			if name == "small" && (err != nil || a.Task != "t") {
				t.Errorf("read = %+v, %v; want task t", a, err)
			}
			if name == "large" && err == nil {
				t.Errorf("an owed alert of %d bytes read, want it left unread", len(body))
			}
			if name != "small" {
				return
			}
			// A second name of the same file: the user's, one file read
			// again under each name (a fire writes its alert once).
			if err := os.Link(filepath.Join(dir, file), filepath.Join(dir, file+".json")); err != nil {
				t.Fatal(err)
			}
			if a, err := h.read(fd, file); err == nil || !strings.Contains(err.Error(), "2 hard links") {
				t.Errorf("a hard-linked owed alert read = %+v, %v; want it refused for its 2 hard links", a, err)
			}
		})
	}
}
