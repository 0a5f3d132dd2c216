package cmd

import (
	"os"
	"testing"
)

// A character device is not a terminal: `scan 2>/dev/null` (cron's usual
// redirection) must not draw its progress bar there, nor calendar colour
// what goes to /dev/null.
func TestIsTerminal(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]*os.File{"/dev/null": devNull, "a file": file, "a pipe": w} {
		if isTerminal(f) {
			t.Errorf("isTerminal(%s) = true, want false", name)
		}
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to check the other way: %v", err)
	}
	defer pty.Close()
	if !isTerminal(pty) {
		t.Error("isTerminal(a pseudo-terminal) = false, want true")
	}
}
