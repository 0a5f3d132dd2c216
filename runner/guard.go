package runner

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// A guard makes a command's whole process group die with this process
// (Config.DieWithParent). PR_SET_PDEATHSIG reaches the command itself only:
// `sh -c 'a; b'` would die, and `a` run on. So a small process, this very
// binary started again with guardEnv set, holds the read end of a pipe
// whose write end only this process has: when this process dies, even of
// SIGKILL, the guard reads EOF and SIGKILLs the command's group. When the
// command ends normally, disarm writes one byte first and the guard exits
// without killing (the group id may then be reused).
const guardEnv = "CATCHUP_RUNNER_GUARD_PGID"

func init() {
	if v := os.Getenv(guardEnv); v != "" {
		os.Exit(guard(v))
	}
}

// guard is the guard process's main: it waits on fd 3.
func guard(pgid string) int {
	pg, err := strconv.Atoi(pgid)
	if err != nil || pg <= 1 {
		return 2
	}
	f := os.NewFile(3, "guard")
	var b [1]byte
	if n, _ := f.Read(b[:]); n == 1 {
		return 0 // disarmed: the command ended under supervision
	}
	syscall.Kill(-pg, syscall.SIGKILL)
	return 0
}

// groupGuard is a running guard, from the supervisor's side.
type groupGuard struct {
	w    *os.File
	proc *exec.Cmd
}

// startGuard starts the guard of process group pgid.
func startGuard(pgid int) (*groupGuard, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("process group guard: %w", err)
	}
	r, w, err := os.Pipe() // close-on-exec: the command never holds the write end
	if err != nil {
		return nil, fmt.Errorf("process group guard: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(self)
	cmd.Env = []string{guardEnv + "=" + strconv.Itoa(pgid)}
	cmd.ExtraFiles = []*os.File{r}
	cmd.Dir = "/"
	// Its own group, so that nothing aimed at the command's group or at
	// catchup's hits it; it dies of nothing but its pipe.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("process group guard: %w", err)
	}
	return &groupGuard{w: w, proc: cmd}, nil
}

// disarm tells the guard the command ended under supervision, and reaps it.
func (g *groupGuard) disarm() {
	if g == nil {
		return
	}
	_, _ = io.WriteString(g.w, "x")
	g.w.Close()
	_ = g.proc.Wait()
}
