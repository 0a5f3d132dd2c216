package catchup

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/internal/termsafe"
	"github.com/catchup/catchup/store"
)

// Root's scan replays other users' crontab lines, each as its user. A fire
// of such a line that ended before its --notify-cmd ran (oweRunAlert)
// keeps its alert owed where that user's catchup keeps its files (its lock
// directory of this ledger, Machine.NotesOf), which no scan of root's
// reads: without a scan of that user's own, it was never sent. Root's scan
// pays it too, as that user (uid, gid, groups, a session of its own, in the
// line's home, with the line's environment; its output escaped, as a
// replay's of that line), never as root: it is that user's command. Only
// a fire's failure alert, for a task of that user's lines on this ledger,
// from a file of that user's alone, in a lock directory of that user's
// alone, opened once: every file is reached through it (openat, renameat,
// unlinkat), never through a path the user may change meanwhile.

// userAlertHome is one user's lock directory, and the lines of theirs
// (by task) whose fires may owe alerts there.
type userAlertHome struct {
	uid   int
	dir   string
	lines map[string]*shellReplay
}

// payUsersOwedAlerts pays the failure alerts other users' fires of the
// lines srs replay (srs[i] replays tasks[i]) owe; stopped reports that
// catchup was stopped while one ran (it stays owed).
func payUsersOwedAlerts(ctx context.Context, st store.Store, m Machine, tasks []store.Task, srs []*shellReplay) (stopped bool) {
	if !readsUsersNotes(m) {
		return false
	}
	homes := map[string]*userAlertHome{}
	for i, sr := range srs {
		uid, ok := sr.otherUID()
		if !ok || sr.db != "" && sr.db != m.DB {
			continue // its fires' runs are another ledger's
		}
		dir, _, err := m.NotesOf(m.DB, uid, sr.userEnv(m))
		if err != nil {
			continue // said by usersNotes
		}
		key := strconv.Itoa(uid) + "\x00" + dir
		if homes[key] == nil {
			homes[key] = &userAlertHome{uid: uid, dir: dir, lines: map[string]*shellReplay{}}
		}
		homes[key].lines[tasks[i].Name] = sr
	}
	// One user's bounds hold across all their lock directories: counted
	// afresh in each, a crontab whose every line names a state directory of
	// its own had root send 4 alerts of theirs per line.
	spent := map[int]*userAlertsSpent{}
	for _, key := range slices.Sorted(maps.Keys(homes)) {
		h := homes[key]
		if spent[h.uid] == nil {
			spent[h.uid] = &userAlertsSpent{user: userOf(h)}
		}
		if h.pay(ctx, st, m, spent[h.uid]) {
			return true
		}
	}
	for _, uid := range slices.Sorted(maps.Keys(spent)) {
		if s := spent[uid]; s.left > 0 {
			m.notice("%d more alerts owed by the fires of %s are left for the next scan (%s)", s.left, s.user, userAlertsBound(s.paid))
		}
	}
	return false
}

// userAlertsSpent is what one root scan spent of a user's owed alerts
// (sent, looked at) and how many it left for the next scan.
type userAlertsSpent struct {
	user               string
	paid, looked, left int
}

// pay pays the alerts owed in h's lock directory, as payUsersOwedAlerts
// says, within what is left of its user's bounds (s).
func (h *userAlertHome) pay(ctx context.Context, st store.Store, m Machine, s *userAlertsSpent) (stopped bool) {
	if lockDir(h.dir, h.uid, false) != nil {
		return false // none, or not the user's alone (usersNotes says so)
	}
	d, err := os.OpenFile(h.dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil || filetrust.Private("lock directory "+h.dir, h.dir, fi, h.uid) != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	slices.Sort(names)
	fd := int(d.Fd())
	for i, name := range names {
		pid, ok := owedAlertPID(name)
		if !ok {
			continue
		}
		if s.paid == maxUserOwedAlerts || s.looked == maxUserOwedAlertLooks {
			s.left += countOwedAlerts(names[i:])
			return false
		}
		s.looked++
		if !takerGone(pid, filepath.Join(h.dir, name)) {
			continue
		}
		a, err := h.read(fd, name)
		sr := h.lines[a.Task]
		if err != nil || a.Run == nil || sr == nil {
			continue // its user's scans pay it, or say why not
		}
		cred, err := sr.credential()
		if err != nil {
			continue
		}
		taken, ok := takeOwedAlertAt(fd, m)
		if ok = ok && unix.Renameat(fd, name, fd, taken) == nil; !ok {
			continue // another scan took it meanwhile
		}
		mu := m
		mu.Environ = sr.env(m)
		out := &termsafe.Writer{W: m.Stderr}
		mu.Stderr = out
		s.paid++
		res := payRunAlert(ctx, st, mu, a, notify.As{Cred: cred, Dir: sr.dir})
		out.Flush()
		switch res {
		case runAlertDone:
			unix.Unlinkat(fd, taken, 0)
		case runAlertStopped:
			return true
		}
	}
	return false
}

// maxUserOwedAlerts bounds the owed alerts of one user's fires that a
// root scan sends: each runs that user's command, for up to 30 s, and the
// user may write as many as they like; those left wait for the next scan
// (or the user's own).
const maxUserOwedAlerts = 4

// maxUserOwedAlertSize bounds the owed alert of another user's fire that
// a root scan reads: a fire's is its task, command, host and run, a few KB
// (the user writes the file as they like: decoded whole, one of gigabytes
// took as much of root's memory). A larger one is left unread.
const maxUserOwedAlertSize = 1 << 20

// maxUserOwedAlertLooks bounds the owed alerts of one user's that a root
// scan looks at, those it sends or not: the user may name as many as they
// like, for tasks not theirs, torn, or of a taker still alive (pid 1), and
// each was looked at (its taker's /proc files read, the file read up to
// maxUserOwedAlertSize) at every scan, none counting against
// maxUserOwedAlerts: 20,000 names of one alert of 1 MiB took a root scan 5
// minutes, 60,000 names of pid 1's 6 s.
const maxUserOwedAlertLooks = 64

// userAlertsBound says which bound of a user's owed alerts a root scan
// reached, having sent paid of them.
func userAlertsBound(paid int) string {
	if paid == maxUserOwedAlerts {
		return fmt.Sprintf("at most %d of a user's are sent per scan", maxUserOwedAlerts)
	}
	return fmt.Sprintf("at most %d of a user's are looked at per scan", maxUserOwedAlertLooks)
}

// countOwedAlerts counts the owed alerts' files among names.
func countOwedAlerts(names []string) int {
	n := 0
	for _, name := range names {
		if _, ok := owedAlertPID(name); ok {
			n++
		}
	}
	return n
}

// userOf names h's user, as its lines do.
func userOf(h *userAlertHome) string {
	for _, sr := range h.lines {
		return sr.user
	}
	return "uid " + strconv.Itoa(h.uid)
}

// read reads the owed alert name in the directory fd, a file of h's user
// alone, never through a symlink.
func (h *userAlertHome) read(fd int, name string) (owedAlert, error) {
	n, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return owedAlert{}, err
	}
	f := os.NewFile(uintptr(n), filepath.Join(h.dir, name))
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(n, &st); err != nil {
		return owedAlert{}, err
	}
	if st.Nlink != 1 {
		// A fire writes its alert once, under one name: more links are the
		// user's, one file to make root read again under each name.
		return owedAlert{}, &filetrust.Refusal{Name: "alert owed " + f.Name(), Reason: fmt.Sprintf("it has %d hard links", st.Nlink),
			Fix: "remove it if you did not put it there"}
	}
	return decodeOwedAlert(f, f.Name(), h.uid, maxUserOwedAlertSize)
}

// owedAlertPID is the pid an owed alert's file name carries, if name is one.
func owedAlertPID(name string) (int, bool) {
	if !strings.HasPrefix(name, owedAlertPrefix) || !strings.HasSuffix(name, owedAlertSuffix) {
		return 0, false
	}
	p, _, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(name, owedAlertPrefix), owedAlertSuffix), ".")
	pid, err := strconv.Atoi(p)
	return pid, ok && err == nil && pid > 0
}

// takeOwedAlertAt is a name of this process's for an owed alert in the
// directory fd, free there (takeOwedAlert's, through the directory).
func takeOwedAlertAt(fd int, m Machine) (string, bool) {
	for range 100 {
		name := owedAlertPrefix + strconv.Itoa(m.PID) + "." + strconv.FormatInt(owedAlertSeq.Add(1), 10) + owedAlertSuffix
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return name, true
		}
	}
	return "", false
}
