package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Exit statuses Run reports for outcomes that are not the command's own.
const (
	exitTimedOut   = 124 // Config.Timeout elapsed (as timeout(1))
	exitCanceled   = 125 // ctx was done before the command was started
	exitCannotExec = 126 // found but could not be executed
	exitNotFound   = 127 // not found
)

// envPath returns the PATH the command name is resolved with: the last PATH=
// entry of env (the one the child would see), else the process's own PATH.
func envPath(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return os.Getenv("PATH")
}

// lookPath resolves file against path the way exec.LookPath does, with one
// difference borrowed from shells: when no executable candidate exists but a
// non-executable one does, the error wraps fs.ErrPermission (126) rather
// than exec.ErrNotFound (127). Names containing a slash are returned as is;
// execve then decides. A match found through a relative PATH entry is
// refused with exec.ErrDot, as exec.Command does.
func lookPath(file, path string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	denied := ""
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() {
			continue
		}
		if fi.Mode()&0o111 == 0 || syscall.Access(p, 1 /* X_OK */) != nil {
			if denied == "" {
				denied = p
			}
			continue
		}
		if !filepath.IsAbs(p) {
			return "", &exec.Error{Name: file, Err: exec.ErrDot}
		}
		return p, nil
	}
	if denied != "" { // named by its path: the fix is a chmod of it
		return "", &exec.Error{Name: denied, Err: fs.ErrPermission}
	}
	return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
}

// checkDir reports why dir cannot be used as a working directory. Checking
// up front keeps a missing directory from surfacing as the ENOENT of execve,
// which would read as "command not found".
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("working directory %s: %w", dir, syscall.ENOTDIR)
	}
	return nil
}

// startExitCode maps a failure to start to the status a shell would give:
// 127 when the program does not exist, 126 for everything else (EACCES,
// ENOEXEC, a directory, ...).
func startExitCode(err error) int {
	switch {
	case errors.Is(err, exec.ErrNotFound),
		errors.Is(err, exec.ErrDot),
		errors.Is(err, syscall.ENOENT):
		return exitNotFound
	default:
		return exitCannotExec
	}
}

// exitStatus converts a wait status into (exit code, signal).
func exitStatus(st *os.ProcessState) (code, sig int) {
	if st == nil {
		return exitCanceled, 0 // unreachable in practice: wait itself failed
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		sig = int(ws.Signal())
		return 128 + sig, sig
	}
	return st.ExitCode(), 0
}

// processAttr starts the child in a process group of its own, the group
// Run signals. A child run as another user (cred) starts a session of its
// own instead (its group too), as cron starts a job: without a controlling
// terminal. In the caller's session it could open /dev/tty, the terminal
// of the root who ran scan or backfill by hand, then push keystrokes into
// the root shell's input (TIOCSTI), run as root once scan exits, or read
// what root types next.
func processAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	if cred != nil {
		return &syscall.SysProcAttr{Setsid: true, Credential: cred}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}
