package reaper

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRunExitsWithTheProgramsStatus: Run returns the program's exit
// code, 128+N when signal N killed it, and the signal it forwards is the
// program's to act on.
func TestRunExitsWithTheProgramsStatus(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	for name, tc := range map[string]struct {
		script string
		signal bool // send SIGTERM to this process once the program runs
		want   int
	}{
		"exit code":         {script: "exit 3", want: 3},
		"killed by SIGKILL": {script: "kill -9 $$", want: 128 + 9},
		// 99: no SIGTERM came within about a minute (it was not forwarded).
		"forwarded SIGTERM": {script: `trap "exit 7" TERM; touch "$1"; i=0; while [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done; exit 99`, signal: true, want: 7},
	} {
		t.Run(name, func(t *testing.T) {
			ready := filepath.Join(t.TempDir(), "ready")
			if tc.signal {
				go func() {
					for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
						if _, err := os.Stat(ready); err == nil {
							syscall.Kill(os.Getpid(), syscall.SIGTERM)
							return
						}
					}
				}()
			}
			got, err := Run(sh, []string{"sh", "-c", tc.script, "sh", ready}, os.Environ(), syscall.SIGTERM)
			if err != nil || got != tc.want {
				t.Fatalf("Run(%q) = %d, %v; want %d", tc.script, got, err, tc.want)
			}
		})
	}
}

// TestRunReapsOrphans: an orphan re-parented to the process that runs Run
// (here a child subreaper, as PID 1 is one) is reaped once it exits, while
// the program still runs.
func TestRunReapsOrphans(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	if err := setSubreaper(); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	dir := t.TempDir()
	pidFile, reaped := filepath.Join(dir, "orphan.pid"), filepath.Join(dir, "reaped")
	// The program leaves an orphan that exits soon after, then waits until the
	// test saw it reaped (the orphan's pid gone from /proc).
	script := `(sleep 0.1 & echo $! > "$1.tmp"; mv "$1.tmp" "$1") ; while [ ! -e "$2" ]; do sleep 0.01; done`
	done := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for ; time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, err := os.ReadFile(pidFile)
			if err != nil {
				continue
			}
			if _, err := os.Stat("/proc/" + string(b[:len(b)-1])); os.IsNotExist(err) {
				done <- os.WriteFile(reaped, nil, 0o600)
				return
			}
		}
		os.WriteFile(reaped, nil, 0o600)
		done <- os.ErrDeadlineExceeded
	}()
	if got, err := Run(sh, []string{"sh", "-c", script, "sh", pidFile, reaped}, os.Environ()); err != nil || got != 0 {
		t.Fatalf("Run = %d, %v; want 0", got, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the orphan was not reaped within a minute (still a zombie in /proc): %v", err)
	}
}

// TestRunHoldingUntilReady: a signal to hold that comes while the program
// starts (here the program sends it itself, before it traps it) is held
// back until the program closes ReadyFD, then passed on: the program's trap
// takes it (exit 7), where passed on at once it ended the program (129).
func TestRunHoldingUntilReady(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	// 99: no SIGHUP came within about a minute of the close (it was lost).
	script := `kill -HUP $PPID; sleep 0.2; trap "exit 7" HUP; exec 3>&-; i=0; while [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done; exit 99`
	got, err := RunHolding(sh, []string{"sh", "-c", script}, os.Environ(), []os.Signal{syscall.SIGHUP}, syscall.SIGHUP, syscall.SIGTERM)
	if err != nil || got != 7 {
		t.Fatalf("RunHolding = %d, %v; want 7 (the held SIGHUP passed on once the program was ready)", got, err)
	}
}
