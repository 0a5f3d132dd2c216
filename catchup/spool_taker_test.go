package catchup

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTakerGoneWhenItsPidIsReused: notes taken under a pid (NOTES.PID) are
// abandoned when that pid is gone, or names a process that started after
// the notes were taken (the pid reused after a power cut); the process
// that took them, alive, still holds them.
func TestTakerGoneWhenItsPidIsReused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	taken := filepath.Join(dir, "NOTES.taken")
	if err := os.WriteFile(taken, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if takerGone(os.Getpid(), taken) {
		t.Errorf("this process, which started before the notes were taken, is taken for gone")
	}
	// A process started after the take, as /proc reads its start (10 ms
	// ticks after a boot time in whole seconds: read up to a second early):
	// started anew until one reads so.
	fi, err := os.Stat(taken)
	if err != nil {
		t.Fatal(err)
	}
	var later *exec.Cmd
	for deadline := time.Now().Add(10 * time.Second); ; {
		later = exec.Command("sleep", "30")
		if err := later.Start(); err != nil {
			t.Fatal(err)
		}
		if start, ok := processStart(later.Process.Pid); ok && start.After(fi.ModTime()) {
			break
		}
		later.Process.Kill()
		later.Wait()
		if time.Now().After(deadline) {
			t.Fatalf("no process started after %s read so from /proc within 10s", fi.ModTime())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { later.Process.Kill(); later.Wait() })
	if !takerGone(later.Process.Pid, taken) {
		start, _ := processStart(later.Process.Pid)
		t.Errorf("process %d started at %s, after the notes were taken, holds them", later.Process.Pid, start)
	}
	later.Process.Kill()
	later.Wait()
	if !takerGone(later.Process.Pid, taken) {
		t.Errorf("a gone process holds the notes")
	}
	if start, ok := processStart(os.Getpid()); !ok || start.After(time.Now()) || time.Since(start) > time.Hour {
		t.Errorf("processStart of this process = %s, %v; want a time within the last hour", start, ok)
	}
}
