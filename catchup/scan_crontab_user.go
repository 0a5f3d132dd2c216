package catchup

import (
	"errors"
	"fmt"
	"os/user"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// newShellReplay is the replay of crontab line se, run as cron would: in the
// user's home (a HOME= line in the crontab overrides it, as in cron). A line
// whose `catchup run` records into another ledger (--db on the line, or a
// CATCHUP_DB= line) is refused: its fires are not in this scan's ledger, so
// every slot would look missed and run again.
func newShellReplay(m Machine, se sourcedEntry) (*shellReplay, error) {
	e := se.Entry
	sr := &shellReplay{command: e.Command, stdin: e.Stdin, vars: e.Env, user: e.User, program: crontab.Program(e.Command)}
	if err := sr.resolveUser(m, e.User, se.user, se.spool); err != nil {
		return nil, err
	}
	db := e.DB
	for _, kv := range e.Env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME" && v != "":
			sr.dir = v
		case k == "CATCHUP_DB" && db == "":
			db = v
		}
	}
	if err := sr.checkOtherUser(m, db); err != nil {
		return nil, err
	}
	sr.db = db
	if db != "" && !sameLedger(db, m.DB, sr.dir) {
		return nil, lineRefusal(fmt.Sprintf("the line records into ledger %s, not this scan's: scan it with --db set to that ledger", taskname.Shown(store.SafeLocation(db), 128)))
	}
	if err := sr.checkZonePaths(m, e); err != nil { // before anything of this scan's reads them
		return nil, err
	}
	return sr, nil
}

// resolveUser decides whom a crontab line runs as, as cron would: the user
// field of a system crontab's line, else the user the crontab belongs to,
// else (stdin) the scanning user. A line of the scanning user runs in its
// home: from passwd for a system crontab's line and a spool crontab's (as
// cron runs them, whatever HOME scan has: a root scan from systemd has
// none), else Machine.HomeDir. A line of another user runs as that user,
// which only a root scan can do; a scan run by anyone else refuses it.
func (sr *shellReplay) resolveUser(m Machine, lineUser, fileUser string, spool bool) error {
	name := lineUser
	if name == "" {
		name = fileUser
	}
	if name == "" {
		home, err := m.HomeDir("")
		sr.dir = home
		return err
	}
	u, err := user.Lookup(name)
	if err != nil {
		// A user crontab's line in a system crontab: the user field is its
		// command's first word, often a secret (PGPASSWORD=X), which the
		// lookup's error quotes again.
		if shown := crontab.Redacted(name); shown != name {
			return fmt.Errorf("unknown user %q", shown)
		}
		return fmt.Errorf("unknown user %q: %w", name, err)
	}
	if u.Uid == strconv.Itoa(m.UID) {
		if lineUser != "" || spool {
			sr.dir = u.HomeDir
			return nil
		}
		home, err := m.HomeDir("")
		sr.dir = home
		return err
	}
	if m.UID != 0 {
		return lineRefusal(fmt.Sprintf("the line runs as %s, whose own ledger records it: replay it with a scan run as %s", name, name))
	}
	sr.as, sr.user, sr.dir = u, name, u.HomeDir
	return nil
}

// checkOtherUser refuses a line of another user that this scan's ledger
// does not record: the line's own `catchup run`, running as that user,
// records into the ledger the line names (db), else into that user's
// default one. Only a PostgreSQL ledger can be both this scan's and
// another user's: a SQLite ledger is private to its user.
func (sr *shellReplay) checkOtherUser(m Machine, db string) error {
	switch {
	case sr.as == nil:
		return nil
	case db == "":
		return lineRefusal(fmt.Sprintf("the line runs as %s, whose own ledger records it: replay it with a scan run as %s", sr.user, sr.user))
	case !store.IsPostgres(m.DB):
		return lineRefusal(fmt.Sprintf("the line runs as %s, who cannot write this scan's ledger (a SQLite ledger is private to its user): "+
			"replay it with a scan run as %s, or record both into one PostgreSQL ledger", sr.user, sr.user))
	}
	return nil
}

// credential is the user a line runs as, when that is not the scanning
// user: uid, gid and supplementary groups. nil for the scanning user.
func (sr *shellReplay) credential() (*syscall.Credential, error) {
	if sr.as == nil {
		return nil, nil
	}
	uid, err1 := strconv.ParseUint(sr.as.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(sr.as.Gid, 10, 32)
	gids, err3 := sr.as.GroupIds()
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, fmt.Errorf("the groups of user %s: cannot read them", sr.user)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			cred.Groups = append(cred.Groups, uint32(n))
		}
	}
	return cred, nil
}

// userEnv is the environment cron gives a line of another user's crontab:
// SHELL=/bin/sh; HOME, LOGNAME and USER from the user's passwd entry; the
// crontab's variables, which may change HOME and SHELL but never LOGNAME or
// USER; PATH, TZ and the locale from scan's environment; and what the
// line's `catchup run` needs to record as this scan does (its host name and
// clock). Nothing else of scan's environment reaches the other user: it
// may hold root's secrets.
func (sr *shellReplay) userEnv(m Machine) []string {
	set := map[string]string{"SHELL": "/bin/sh", "HOME": sr.as.HomeDir, "PATH": "/usr/bin:/bin", "CATCHUP_HOST": m.Host}
	for _, kv := range m.Environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH", k == "TZ", k == "LANG", strings.HasPrefix(k, "LC_"), k == "CATCHUP_NOW", k == "CATCHUP_BOOT_ID":
			set[k] = v
		}
	}
	for _, kv := range sr.vars {
		k, v, _ := strings.Cut(kv, "=")
		set[k] = v
	}
	set["LOGNAME"], set["USER"] = sr.user, sr.user
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(keys))
	for _, k := range keys {
		env = append(env, k+"="+set[k])
	}
	return env
}

// ErrLineRefused marks a crontab line scan refuses to run: it runs as a
// user whose own ledger records it, records into a ledger other than this
// scan's, or fails checkLine. Like a refused crontab, it makes scan exit 1.
var ErrLineRefused = errors.New("crontab line refused")

type lineRefusal string

func (e lineRefusal) Error() string        { return string(e) }
func (e lineRefusal) Is(target error) bool { return target == ErrLineRefused }

// checkTakeover refuses a line of another user (a root scan's, on a shared
// ledger) whose task old is registered, live, as something not that
// user's: another user's `catchup run --cron` or daemon line (root's
// included), or a line of a crontab that is not that user's. Registered,
// the line would take the task over: its missed slots replayed through the
// line, as that user, and the owner's own job never again. The user needs
// no credentials of the ledger for that: root's scan writes the line's
// registration.
func (sr *shellReplay) checkTakeover(m Machine, old store.Task, path string) error {
	if sr.as == nil {
		return nil
	}
	refuse := func(as string) error {
		return lineRefusal(fmt.Sprintf("task %s is registered by %s, not by %s: scan does not register this line (give it its own --task)",
			old.Name, as, sr.user))
	}
	if uid, by, ok := registrant(old.Source); ok {
		if uid == sr.as.Uid {
			return nil
		}
		return refuse("uid " + uid + "'s " + by)
	}
	other := lineSource(old.Source)
	uid, name, recorded := lineRegistrant(old.Source)
	if recorded && uid == sr.as.Uid && (name == "" || name == sr.user) {
		return nil // a line of this same user's, as its registration recorded
	}
	if other == "" && recorded { // found on stdin: never read again
		return refuse(recordedUser(uid, name) + "'s line")
	}
	if !strings.HasPrefix(old.Source, "crontab:") || other == "" {
		return refuse(fmt.Sprintf("%q", old.Source))
	}
	if other == path {
		return nil
	}
	f, gone := newCrontabs(m).findLine(old)
	if gone != nil {
		if gone.gone != "" {
			return nil // its line is gone: the task is free
		}
		return refuse(fmt.Sprintf("the line of %s (which this scan cannot read: %v)", other, gone.err))
	}
	owner := lineUserName(m, f)
	if owner == sr.user {
		return nil
	}
	return refuse(fmt.Sprintf("the line at %s:%d, %s's", other, f.Line, owner))
}

// recordedUser names the user a line's registration recorded: "NAME (uid
// N)", or "uid N".
func recordedUser(uid, name string) string {
	if name == "" {
		return "uid " + uid
	}
	return fmt.Sprintf("%s (uid %s)", name, uid)
}

// lineUserName is the user line se runs as: the user field of a system
// crontab's line, else its crontab's user, else (stdin, a file of root's)
// the scanning user.
func lineUserName(m Machine, se sourcedEntry) string {
	if se.Entry.User != "" {
		return se.Entry.User
	}
	if se.user != "" {
		return se.user
	}
	return filetrust.UserName(m.UID)
}
