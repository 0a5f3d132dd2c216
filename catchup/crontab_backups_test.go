package catchup

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCronDirOpensNoFIFO: the files beside a crontab in a cron.d directory
// are listed by type, then opened: one swapped for a FIFO in between (the
// directory may be a user's, ~/cron.d) must not block the scan, nor a
// symlink lead it elsewhere. Directories open, for the listing.
func TestCronDirOpensNoFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "self")); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		name string
		ok   bool
		via  string // the directory as reached, under dir; "" for dir
	}{
		"a FIFO":                            {name: "fifo"},
		"a symlink to a device":             {name: "link"},
		"a regular file":                    {name: "file", ok: true},
		"the directory":                     {name: ".", ok: true},
		"the directory, reached by symlink": {name: ".", ok: true, via: "self"},
		"a file, its directory by symlink":  {name: "file", ok: true, via: "self"},
		"a path out of it":                  {name: "../x"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				d, err := openCronDir(filepath.Join(dir, tc.via))
				if err != nil {
					done <- err
					return
				}
				defer d.Close()
				f, err := d.Open(tc.name)
				if err == nil {
					f.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if (err == nil) != tc.ok {
					t.Fatalf("Open(%s) = %v, want ok %v", tc.name, err, tc.ok)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Open(%s) still blocked after 5s", tc.name)
			}
		})
	}
}
