package reaper

import "syscall"

// setSubreaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER):
// orphans below it are re-parented to it, as to PID 1.
func setSubreaper() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 36, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
