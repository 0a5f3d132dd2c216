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
// `sh -c 'a; b'` would die, and `a` run on. So a tiny shell, in a group of
// its own, reads a pipe whose write end only this process holds: when this
// process dies, even of SIGKILL, the shell reads EOF and SIGKILLs the
// command's group. When the command ends under supervision, disarm writes
// a line first, and the shell exits without killing (the group id may then
// be reused).
const guardScript = `read -r line || kill -9 "-$1"`

// groupGuard is a running guard, from the supervisor's side.
type groupGuard struct {
	w    *os.File
	proc *exec.Cmd
}

// startGuard starts the guard of process group pgid.
func startGuard(pgid int) (*groupGuard, error) {
	r, w, err := os.Pipe() // close-on-exec: the command never holds the write end
	if err != nil {
		return nil, fmt.Errorf("process group guard: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", guardScript, "guard", strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	// Its own group, so that nothing aimed at the command's group or at
	// catchup's hits it; it ends with its pipe.
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
	_, _ = io.WriteString(g.w, "done\n")
	g.w.Close()
	_ = g.proc.Wait()
}
