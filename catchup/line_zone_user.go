package catchup

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// A line of another user's crontab that a root scan replays (on a shared
// ledger) may name its zone as a file's path (--tz, CRON_TZ). Root's scan
// reads that zone to register the line and read its slots; with root's
// rights it read files the user cannot, behind directories of root's: its
// warnings told whether such a file exists and what it is, and it
// registered a line whose file there is a zone (its zone in the ledger
// the user reads, its slots by that file), where the user's own fire
// cannot read it and exits 125. So the path is first looked at as that
// user (checkZonePaths): a file that user cannot reach and read refuses
// the line as the user's fire refuses it, saying only what that user
// would be told.

// checkZonePaths refuses line e of another user's (sr.as) whose --tz or
// CRON_TZ is the path of a file that user cannot open for reading.
func (sr *shellReplay) checkZonePaths(e crontab.Entry) error {
	if sr.as == nil {
		return nil
	}
	for _, z := range []struct{ what, name string }{{"--tz", e.Zone}, {"CRON_TZ", e.TZ}} {
		path := strings.TrimPrefix(z.name, ":")
		if !filepath.IsAbs(path) {
			continue // a name of the zone database, or a POSIX TZ string: no file of the user's choosing
		}
		cred, err := sr.credential()
		if err == nil {
			err = readableAs(path, cred)
		}
		if err == nil {
			continue
		}
		why := fmt.Sprintf(" (a zone file's path, as %s: %v)", sr.user, err)
		shown := redact.Value(z.name)
		if shown != z.name || len(shown) > 128 {
			why = "" // it quotes a part of the name, which holds a secret's shape, or is cut
		}
		return lineRefusal(fmt.Sprintf("%s: unknown time zone %s%s: name a zone from tzdata like Europe/Berlin, "+
			"or a POSIX TZ string like EST5EDT,M3.2.0,M11.1.0; every fire of the line exits 125, and it is not registered",
			z.what, taskname.QuotedUpTo(shown, 128), why))
	}
	return nil
}

// zonePathRefused reports whether line se is another user's whose zone
// path that user cannot read (checkZonePaths), for a reader of the line
// that does not replay it.
func zonePathRefused(m Machine, se sourcedEntry) bool {
	sr := &shellReplay{}
	if sr.resolveUser(m, se.Entry.User, se.user, se.spool) != nil {
		return m.UID == 0 // a user root cannot run it as (cron neither); else not root's rights
	}
	return sr.checkZonePaths(se.Entry) != nil
}

// readableAs reports whether the user cred can reach the file at path and
// open it for reading, as the kernel judges it for that user: on a thread
// of this process whose filesystem ids and groups are that user's, locked
// to a goroutine that ends without unlocking it, so that the thread ends
// with it, never running anything else under those ids. Nothing is opened
// for reading: the path is resolved into a descriptor that opens nothing
// (O_PATH), whose file's read permission is then checked. The error is the
// one the user's own open would get (permission denied, no such file);
// nil for a file that is not a regular one, which the zone's reading
// refuses as such (the user can see its type).
func readableAs(path string, cred *syscall.Credential) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		done <- readableHere(path, cred)
	}()
	return <-done
}

// readableHere is readableAs on the locked thread it runs on.
func readableHere(path string, cred *syscall.Credential) error {
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
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	err = unix.Faccessat2(fd, "", unix.R_OK, unix.AT_EMPTY_PATH|unix.AT_EACCESS) // the thread's ids, not the real ones
	if !errors.Is(err, unix.ENOSYS) {
		return err
	}
	// A kernel before 5.8: the file opened again through its descriptor,
	// a regular file (an open acts on nothing), the kernel checking the
	// thread's ids.
	rfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(rfd)
	}
	return err
}
