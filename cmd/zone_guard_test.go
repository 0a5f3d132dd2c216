package cmd

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadLocalZone: the zone catchup reads for Go's local zone from TZ is
// read without blocking, once: a FIFO, a directory or no file is none (UTC),
// a zone file's path and a zone name are that zone, named Local as Go names
// its own.
func TestReadLocalZone(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		tz   string
		want string // the offset at 2026-07-01 12:00 UTC, or "" for none
	}{
		"a zone name":                  {tz: "Asia/Tokyo", want: "+0900"},
		"a zone file's path":           {tz: "/usr/share/zoneinfo/Asia/Kolkata", want: "+0530"},
		"a FIFO":                       {tz: fifo},
		"a FIFO through the zone dirs": {tz: "../../.." + fifo},
		"a directory":                  {tz: dir},
		"no such zone":                 {tz: "Nowhere/Atlantis"},
		"a device":                     {tz: "/dev/zero"},
		"a pollable /proc file, empty": {tz: "/proc/kmsg"}, // regular, size 0; its read blocks (root)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			done := make(chan *time.Location, 1)
			go func() { done <- readLocalZone(tc.tz) }()
			var loc *time.Location
			select {
			case loc = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("readLocalZone(%q) blocked", tc.tz)
			}
			got := ""
			if loc != nil {
				got = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC).In(loc).Format("-0700")
				if loc.String() != "Local" {
					t.Errorf("named %q, want Local", loc.String())
				}
			}
			if got != tc.want {
				t.Errorf("readLocalZone(%q) offset %q, want %q", tc.tz, got, tc.want)
			}
		})
	}
}
