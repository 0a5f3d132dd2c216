package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// startError is why a command could not start, in an operator's words (what,
// why, the fix), never Go's ("fork/exec ./x: permission denied", `exec: "x":
// executable file not found in $PATH`); it unwraps to the cause, which
// startExitCode reads.
type startError struct {
	msg string
	err error
}

func (e *startError) Error() string { return e.msg }
func (e *startError) Unwrap() error { return e.err }

// startFailed says why argv0 could not start, run in dir with PATH path:
// err is lookPath's or exec.Cmd.Start's.
func startFailed(argv0, dir, path string, err error) error {
	return &startError{msg: "start " + argv0 + ": " + startWhy(argv0, dir, path, err), err: err}
}

func startWhy(argv0, dir, path string, err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		switch {
		case errors.Is(err, exec.ErrNotFound):
			return fmt.Sprintf("not found in PATH (%s); fix: write its full path, or add its directory to PATH (a PATH= line in the crontab)", path)
		case errors.Is(err, exec.ErrDot):
			return "found only through a relative directory of PATH, so not run; fix: write its path (./" + argv0 + "), or make PATH's directories absolute"
		case errors.Is(err, fs.ErrPermission):
			return fmt.Sprintf("found in PATH (%s) but not executable by this user; fix: chmod +x %s", ee.Name, ee.Name)
		}
		return ee.Err.Error()
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	file := argv0
	if dir != "" && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	fi, statErr := os.Stat(file)
	switch {
	case statErr == nil && fi.IsDir():
		return "is a directory; fix: name the program to run in it"
	case errno == syscall.ENOENT && statErr == nil:
		return "its #! interpreter was not found (no such file); fix: correct its first line, or name an interpreter that exists"
	case errno == syscall.ENOENT:
		return "no such file; fix: write the path of the program to run"
	case errno == syscall.EACCES:
		return fmt.Sprintf("not executable by this user (permission denied); fix: chmod +x %s, or name its interpreter (sh %s)", argv0, argv0)
	case errno == syscall.ENOEXEC:
		return "not a program this host can run (exec format error: no #! line, or another architecture); fix: add a #! line, or name its interpreter"
	}
	return errno.Error()
}
