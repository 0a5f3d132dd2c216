package schedule

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadZoneFile pins what a zone spelled as a path may make catchup read:
// a regular file of at most MaxZoneFile bytes, nothing else, without ever
// blocking (a FIFO no one writes to) or reading without end (/dev/zero).
func TestReadZoneFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxZoneFile+1); err != nil {
		t.Fatal(err)
	}
	atCap := filepath.Join(dir, "at-cap")
	if err := os.WriteFile(atCap, []byte("TZif"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(atCap, MaxZoneFile); err != nil {
		t.Fatal(err)
	}
	toFifo := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, toFifo); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path string
		size int    // read, when no error
		err  string // "" for none
	}{
		"a FIFO":                    {path: fifo, err: "it is not a regular file"},
		"a symlink to a FIFO":       {path: toFifo, err: "it is not a regular file"},
		"a device without end":      {path: "/dev/zero", err: "it is not a regular file"},
		"a directory":               {path: dir, err: "it is not a regular file"},
		"one byte over the cap":     {path: big, err: "it is larger than 64 KiB"},
		"exactly the cap":           {path: atCap, size: MaxZoneFile},
		"no such file":              {path: filepath.Join(dir, "none"), err: "no such file or directory"},
		"a zone of the tz database": {path: "/usr/share/zoneinfo/Asia/Kathmandu", size: -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.size < 0 {
				if _, err := os.Stat(tc.path); err != nil {
					t.Skipf("no tz database: %v", err)
				}
			}
			done := make(chan struct{})
			var data []byte
			var err error
			go func() { data, err = ReadZoneFile(tc.path); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadZoneFile(%s) still blocked after 5s", tc.path)
			}
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ReadZoneFile(%s) = %d bytes, %v; want error %q", tc.path, len(data), err, tc.err)
				}
			case err != nil:
				t.Fatalf("ReadZoneFile(%s): %v", tc.path, err)
			case tc.size >= 0 && len(data) != tc.size:
				t.Fatalf("ReadZoneFile(%s) = %d bytes, want %d", tc.path, len(data), tc.size)
			case tc.size < 0 && !strings.HasPrefix(string(data), "TZif"):
				t.Fatalf("ReadZoneFile(%s) = %q..., want a TZif file", tc.path, data[:min(len(data), 8)])
			}
		})
	}
}

// TestLoadZoneRefusesNoZoneFile: a zone spelled as the path of anything but
// a small regular file is an unknown zone, and the error says why.
func TestLoadZoneRefusesNoZoneFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct{ zone, want string }{
		"a FIFO":                       {fifo, `unknown time zone "` + fifo + `" (a zone file's path: it is not a regular file): name a zone`},
		"a FIFO, with ':'":             {":" + fifo, `(a zone file's path: it is not a regular file)`},
		"/dev/zero":                    {"/dev/zero", `unknown time zone "/dev/zero" (a zone file's path: it is not a regular file)`},
		"the zoneinfo dir, trailing /": {"/usr/share/zoneinfo/", `unknown time zone "/usr/share/zoneinfo/" (a zone file's path: `},
		"a zone file, trailing /":      {"/usr/share/zoneinfo/UTC/", `unknown time zone "/usr/share/zoneinfo/UTC/" (a zone file's path: `},
		"the zoneinfo dir, /.":         {"/usr/share/zoneinfo/.", `unknown time zone "/usr/share/zoneinfo/." (a zone file's path: it is not a regular file)`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := LoadZone(tc.zone); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("LoadZone(%q) = %v, want an error with %q", tc.zone, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("LoadZone(%q) still blocked after 5s", tc.zone)
			}
		})
	}
}
