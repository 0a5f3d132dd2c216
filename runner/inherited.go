package runner

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec marks every descriptor of this process from 3 up
// close-on-exec, so that a child started as another user (Config.Credential)
// gets none of them: those this process inherited without the flag (a root
// shell's `exec 9>file; flock 9; catchup scan`) would otherwise hand that
// user root's open files, and root's lock beyond the scan. Go opens its own
// descriptors close-on-exec already, and exec.Cmd gives the child its
// standard streams and ExtraFiles as copies made for it, which the flag
// does not touch. It stays set afterwards: this process's later children,
// its own user's included, inherit none of them either (cron's jobs never
// do). close_range(2) does it in one call (Linux 5.11); before, each
// descriptor in /proc/self/fd.
func closeInheritedOnExec() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd < 3 || fd == int(d.Fd()) {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return err
		}
	}
	return nil
}

// cronUmask is the umask a child run as another user starts with: the one
// cron's jobs get from a cron daemon that init or systemd started.
const cronUmask = 0o022

// startWithCronUmask starts cmd, a child run as another user, with
// cronUmask, never this process's own (root's shell's 077 made every file
// that user's job created private, its 000 writable by everyone): on a
// thread of its own whose filesystem attributes (umask, cwd, root) are no
// longer shared with the process (unshare CLONE_FS), so that nothing else
// of this process ever creates a file with that umask, locked to a
// goroutine that ends without unlocking it, so that the thread ends with
// it. The child inherits the umask across fork and exec. Not for a child
// that must die with the thread that forked it (Config.DieWithParent).
func startWithCronUmask(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			done <- err
			return
		}
		unix.Umask(cronUmask)
		done <- cmd.Start()
	}()
	return <-done
}
