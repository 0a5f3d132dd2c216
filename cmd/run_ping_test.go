package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPingFileNeverBlocksTheFire: a --ping-file that is a FIFO (nothing
// writing it), a directory or a file larger than a URL needs is a warning
// and no ping, at once: the fire goes on to run its job.
func TestPingFileNeverBlocksTheFire(t *testing.T) {
	dir := t.TempDir()
	tests := map[string]struct {
		make func(path string) error
		want string // the URL, or a piece of the warning
	}{
		"a URL": {make: func(p string) error { return os.WriteFile(p, []byte(" https://hc.example/x \nmore\n"), 0o600) },
			want: "https://hc.example/x"},
		"a FIFO":      {make: func(p string) error { return syscall.Mkfifo(p, 0o600) }, want: "not a regular file"},
		"a directory": {make: func(p string) error { return os.Mkdir(p, 0o700) }, want: "not a regular file"},
		"too large": {make: func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte("x"), maxPingFile+1), 0o600) },
			want: "larger than 64 KiB"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			got := pingURL("", path, func(string) string { return "" }, &stderr)
			if got != tc.want && !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("pingURL = %q, stderr %q; want %q", got, stderr.String(), tc.want)
			}
		})
	}
}
