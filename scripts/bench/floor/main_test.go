package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRun(t *testing.T) {
	tests := map[string]struct {
		argv []string
		want int
	}{
		"success":           {[]string{"true"}, 0},
		"the command's own": {[]string{"sh", "-c", "exit 3"}, 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			lock := filepath.Join(t.TempDir(), "lock")
			if got := run(append([]string{lock}, tc.argv...)); got != tc.want {
				t.Errorf("run(%q) = %d, want %d", tc.argv, got, tc.want)
			}
		})
	}
}

func TestRunSkipsWhenTheLockIsHeld(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "lock")
	f, err := os.Create(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	if got := run([]string{lock, "touch", ran}); got != 75 {
		t.Errorf("run with the lock held = %d, want 75", got)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran although the lock was held")
	}
}
