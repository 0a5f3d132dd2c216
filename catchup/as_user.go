package catchup

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Root's scan looks at paths another user's crontab line names (a zone
// file's, its home) for that user's line. With root's rights it reached
// what that user cannot, behind directories of root's, and told that user
// (in its warnings, and in the ledger they read: a line registered, a run
// recorded) whether a file there exists and what it is. accessAs looks at
// such a path as that user first.

// accessMemo is what accessAs answered, for one scan or backfill: a
// user's lines mostly share a home, and each check takes a thread of its
// own (a crontab of 35,000 lines of one user's paid 8 s for them).
type accessMemo struct {
	mu    sync.Mutex
	seen  map[string]error
	lines map[lineKey]lineRead // readLine's, of other users' lines (line_zone_reader.go)
}

func newAccessMemo() *accessMemo {
	return &accessMemo{seen: map[string]error{}, lines: map[lineKey]lineRead{}}
}

// access is accessAs, answered once per user, path and mode (a nil memo:
// every time).
func (a *accessMemo) access(path string, cred *syscall.Credential, mode uint32) error {
	if a == nil {
		return accessAs(path, cred, mode)
	}
	key := fmt.Sprint(cred.Uid, cred.Gid, cred.Groups, mode, path)
	a.mu.Lock()
	err, ok := a.seen[key]
	a.mu.Unlock()
	if !ok {
		err = accessAs(path, cred, mode)
		a.mu.Lock()
		a.seen[key] = err
		a.mu.Unlock()
	}
	return err
}

// accessAs reports whether the user cred can reach the file at path and
// access it for mode (unix.R_OK: read a regular file; unix.X_OK: enter a
// directory), as the kernel judges it for that user: on a thread of this
// process whose filesystem ids and groups are that user's, locked to a
// goroutine that ends without unlocking it, so that the thread ends with
// it, never running anything else under those ids. Nothing is opened for
// reading: the path is resolved into a descriptor that opens nothing
// (O_PATH), whose permission is then checked. The error is the one the
// user's own process would get (permission denied, no such file); nil for
// a file of another type than mode is about (for R_OK, anything but a
// regular file; for X_OK, anything but a directory), which the caller
// refuses as such (the user can see its type).
func accessAs(path string, cred *syscall.Credential, mode uint32) error {
	return onThreadAs(cred, func() error { return accessHere(path, mode) })
}

// onThreadAs runs fn on a thread of this process whose filesystem ids and
// groups are cred's, locked to a goroutine that ends without unlocking it,
// so that the thread ends with it, never running anything else under
// those ids. Every file fn opens, reads or resolves (through symlinks), it
// reaches as that user would: fn must start no goroutine that does so.
func onThreadAs(cred *syscall.Credential, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := takeFilesystemIDs(cred); err != nil {
			done <- err
			return
		}
		done <- fn()
	}()
	return <-done
}

// takeFilesystemIDs gives the locked thread it runs on cred's filesystem
// ids and groups.
func takeFilesystemIDs(cred *syscall.Credential) error {
	groups := make([]int, len(cred.Groups))
	for i, g := range cred.Groups {
		groups[i] = int(g)
	}
	if err := unix.Setgroups(groups); err != nil {
		return fmt.Errorf("take the groups of uid %d: %w", cred.Uid, err)
	}
	unix.Setfsgid(int(cred.Gid))
	unix.Setfsuid(int(cred.Uid))
	if uid, _ := unix.SetfsuidRetUid(-1); uid != int(cred.Uid) { // (-1 changes nothing: it says the fsuid)
		return fmt.Errorf("take the filesystem ids of uid %d: this process cannot", cred.Uid)
	}
	return nil
}

// accessHere is accessAs on the thread onThreadAs gave the user's ids.
func accessHere(path string, mode uint32) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	want := uint32(unix.S_IFREG)
	if mode == unix.X_OK {
		want = unix.S_IFDIR
	}
	if st.Mode&unix.S_IFMT != want {
		return nil
	}
	err = unix.Faccessat2(fd, "", mode, unix.AT_EMPTY_PATH|unix.AT_EACCESS) // the thread's ids, not the real ones
	if !errors.Is(err, unix.ENOSYS) {
		return err
	}
	// A kernel before 5.8: a regular file opened again through its
	// descriptor (an open acts on nothing), a directory entered (its "."
	// looked up in it), the kernel checking the thread's ids.
	var again int
	if mode == unix.X_OK {
		again, err = unix.Openat(fd, ".", unix.O_PATH|unix.O_CLOEXEC, 0)
	} else {
		again, err = unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	}
	if err == nil {
		unix.Close(again)
	}
	return err
}
