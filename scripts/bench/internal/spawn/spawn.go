// Package spawn runs the command of the bench's floor programs as catchup
// runs a job: stdin, stdout and stderr passed through, the lock handed down
// as fd 3, and the exit status a shell would report.
package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Run runs argv with lock as its fd 3 and returns its exit status: its
// code, 128+N when signal N killed it, 127 when it could not start.
func Run(argv []string, lock *os.File) int {
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.ExtraFiles = []*os.File{lock}
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
}
