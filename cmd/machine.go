package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// globals are the flags every command shares.
type globals struct {
	db    string
	host  string
	lease time.Duration
	// signalsCaught is closed once catchup's stop signals are caught
	// (signalContext); nil when nothing installs them (NewRootCommand).
	signalsCaught <-chan struct{}
	// stopWith ends the command's context with a stop signal the runner
	// forwards to a job (catchup.Machine.Stop); nil with signalsCaught.
	stopWith func(os.Signal)
	// endOnStop makes a stop signal end catchup at once (signalContext);
	// nil with signalsCaught.
	endOnStop func()
}

// readsOnly annotates a command that only reads: a stop signal ends it at
// once (globals.readOnly), where its work would not look.
const readsOnly = "catchup/reads-only"

// readOnly says that the command only reads from now on, so that a stop
// signal (Ctrl-C) ends it at once, exit 128+N, instead of when its work is
// done, which can be long (years of missed slots to count).
func (g *globals) readOnly() {
	if g.endOnStop != nil {
		g.endOnStop()
	}
}

// awaitSignals returns once catchup's stop signals are caught, so that a
// SIGTERM from then on is seen by the command instead of ending catchup
// before it could record anything.
func (g *globals) awaitSignals() {
	if g.signalsCaught != nil {
		<-g.signalsCaught
	}
}

// lockDirKey is what keys a PostgreSQL ledger's lock directory (a hand
// parse kept as it was, so that existing directories keep their names;
// store.Location.Identity compares ledgers): server, database and
// schema (search_path), not the spelling of its DSN. A rotated password or
// reordered parameters must not give the same ledger another lock directory.
// The password goes first, cut as the driver reads the URL: net/url read a
// # or ? in it as a port and a fragment or query, or gave up, and the
// key was then the DSN's text, password and all.
func lockDirKey(dsn string) string {
	if bare := store.WithoutPassword(dsn); bare != "" {
		dsn = bare
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	schema := q.Get("search_path")
	for _, o := range strings.Fields(q.Get("options")) {
		if v, ok := strings.CutPrefix(o, "-csearch_path="); ok {
			schema = v
		}
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return host + ":" + port + "/" + strings.TrimPrefix(u.Path, "/") + "?schema=" + schema
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ledgerPath resolves --db, CATCHUP_DB, CATCHUP_DB_FILE, then the default
// location.
func ledgerPath(g *globals) (string, error) {
	if g.db != "" {
		return g.db, refuseOddPath("--db", g.db, os.Getenv)
	}
	if p := os.Getenv("CATCHUP_DB"); p != "" {
		return p, refuseOddPath("CATCHUP_DB", p, os.Getenv)
	}
	if f := ledgerFile(g); f != "" {
		if err := refuseTilde("CATCHUP_DB_FILE="+f, f, os.Getenv); err != nil {
			return "", err
		}
		p, err := readLedgerFile(f)
		if err == nil {
			err = refuseTilde("CATCHUP_DB_FILE "+f+" holds "+p, p, os.Getenv)
		}
		if err == nil {
			warnLedgerFileSwappable(os.Stderr, f)
		}
		return p, err
	}
	dir, err := stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "catchup.db"), nil
}

// stateDir is catchup's private directory: $CATCHUP_STATE_DIR, else
// /var/lib/catchup as root, else $XDG_STATE_HOME/catchup
// (~/.local/state/catchup).
func stateDir() (string, error) { return stateDirOf(os.Geteuid(), os.Getenv) }

// jobStarted, set by a test only, is called as each job starts, with the
// command's stopWith: it ends the command's context there, as a stop
// signal's handler that ran late does when the signal came before the
// runner caught signals.
var jobStarted func(stopWith func(os.Signal))

// newMachine describes this host and process to the domain. Boot time is
// read only when withBoot is set (run records it with its claim, scan and
// ls apply the boot rule and the causes of missed slots with it, and every
// command that marks dead runs ends a run of an earlier boot by it).
func newMachine(g *globals, db string, withBoot bool) (catchup.Machine, error) {
	now, pinned, err := clock(os.Getenv)
	if err != nil {
		return catchup.Machine{}, err
	}
	host, err := hostName(g.host, os.Getenv)
	if err != nil {
		return catchup.Machine{}, err
	}
	if host == "" {
		host, _ = os.Hostname()
	}
	lockDir, err := lockDirOf(db, os.Geteuid(), os.Getenv)
	if err != nil {
		return catchup.Machine{}, err
	}
	m := catchup.Machine{
		Now: now, ClockPinned: pinned, Host: host, BootID: bootID(), PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: lockDir, NoteDir: noteDir(os.Geteuid()), DB: db, DBFile: ledgerFile(g), Where: store.SafeLocation(db), Lease: g.lease, Environ: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Notice: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "catchup: %s\n", printable(fmt.Sprintf(format, args...)))
		},
		HomeDir: homeDir,
		NotesOf: notesOf,
		LockDirHint: func(err error) error {
			return homeIsRootLockHint(err, lockDir, os.Geteuid(), os.Getenv)
		},
		Stop: g.stopWith,
	}
	if jobStarted != nil && g.stopWith != nil {
		m.OnJobStart = func(int) { jobStarted(g.stopWith) }
	}
	if withBoot {
		if m.BootTime, err = bootTime(); err != nil {
			return catchup.Machine{}, err
		}
	}
	var warning string
	m.CronZone = func() string {
		if _, set := os.LookupEnv("TZ"); !set {
			return m.Zone // read from /etc/localtime already (hostZone)
		}
		return cronZone()
	}
	if m.Zone, warning = hostZone(); warning != "" {
		m.Notice("%s", warning)
	}
	return m, nil
}

// hostName is --host, else CATCHUP_HOST ("" when neither is set). A
// control character or a space in it is refused: it was recorded as
// given, and its newline broke the tables and logs that show it, its
// spaces left their HOST column blank or split it. Other bytes are taken
// as they are, invalid UTF-8 too (e2e TestInvalidUTF8Replay).
// maxHost is the longest host name taken, in bytes (DNS's longest name is
// 253 characters).
const maxHost = 255

func hostName(flag string, getenv func(string) string) (string, error) {
	host, what, fix := flag, "--host ", "drop --host for $CATCHUP_HOST, else the hostname"
	if host == "" {
		host, what, fix = getenv("CATCHUP_HOST"), "CATCHUP_HOST=", "unset CATCHUP_HOST for the hostname"
	}
	switch {
	case strings.ContainsFunc(host, unicode.IsControl): // \n, \t, \r: before the spaces
		return "", fmt.Errorf("%s%q holds a control character: name this host in printable characters, or %s", what, host, fix)
	case strings.ContainsFunc(host, unicode.IsSpace):
		return "", fmt.Errorf("%s%q holds a space: a host name is one word; name this host so, or %s", what, host, fix)
	case len(host) > maxHost:
		return "", fmt.Errorf("%s%s is over %d bytes: name this host in fewer, or %s", what, taskname.Quoted(host), maxHost, fix)
	}
	return host, nil
}

// noteDir is the spare note directory of uid's fires (noteDirOf).
func noteDir(uid int) string { return noteDirOf(uid, os.Getenv) }

// homeDir is a user's home from the passwd database; the current user's
// ("") is $HOME, else (a systemd system service sets none) the passwd
// database's.
func homeDir(name string) (string, error) {
	if name == "" {
		if home, err := os.UserHomeDir(); err == nil {
			return home, nil
		}
		u, err := user.LookupId(strconv.Itoa(os.Geteuid()))
		if err != nil || u.HomeDir == "" {
			return "", fmt.Errorf("no home directory: $HOME is not set and uid %d has no passwd entry; set HOME", os.Geteuid())
		}
		return u.HomeDir, nil
	}
	u, err := user.Lookup(name)
	if err != nil || u.HomeDir == "" {
		return "", fmt.Errorf("no home directory for user %q in the passwd database; add the user, or set HOME in the crontab", name)
	}
	return u.HomeDir, nil
}

// bootID identifies this boot; CATCHUP_BOOT_ID overrides it (tests simulate
// a reboot with it).
func bootID() string {
	if v := os.Getenv("CATCHUP_BOOT_ID"); v != "" {
		return v
	}
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// bootTime reads btime from /proc/stat; zero when unknown (not Linux).
// CATCHUP_BOOT_TIME (RFC 3339) overrides it: tests simulate a boot, or a
// clock step (the kernel's btime moves with the wall clock), with it.
func bootTime() (time.Time, error) {
	if v := os.Getenv("CATCHUP_BOOT_TIME"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return time.Time{}, fmt.Errorf("CATCHUP_BOOT_TIME=%s is not an RFC 3339 time (like 2026-01-02T03:04:05Z)", quotedValue(v))
		}
		return t, nil
	}
	f, err := os.Open("/proc/stat")
	if err != nil {
		return time.Time{}, nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(n, 0), nil
			}
		}
	}
	return time.Time{}, nil
}
