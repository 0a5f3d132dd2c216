package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/catchup/catchup/catchup/schedule"
)

// daemonZone is the host's zone as the daemon reads it, again at every
// reload of its crontabs: a line without --tz or CRON_TZ is read in the
// zone the host has then (a changed zone is a schedule change for such a
// line, which its registration warns of), not in the one it had when the
// daemon started.
type daemonZone struct {
	mu     sync.Mutex
	zone   string // the zone the tasks were last read in
	shared bool   // a shared ledger: a task it holds keeps its registered zone (RegisterDaemonTask)
}

// reread reads the host's zone again (as hostZone reads it) and returns
// the zone to read the lines in, saying on notice when it changed. A TZ
// that names a zone names it for the daemon's life. A zone that cannot be
// read or named now, or an /etc/localtime gone for a moment (ln -sf
// replaces it in two steps), is no change: the zone stays as it was.
func (z *daemonZone) reread(notice func(format string, args ...any)) string {
	z.mu.Lock()
	defer z.mu.Unlock()
	if tz, set := os.LookupEnv("TZ"); set && (strings.TrimPrefix(tz, ":") == "" || zoneName(tz) != "") {
		return z.zone
	}
	link := localtimeLink()
	if _, err := os.Lstat(link); errors.Is(err, fs.ErrNotExist) {
		return z.zone
	}
	if target, dangling := danglingZoneLink(link); dangling {
		// systemZone reads it as no /etc/localtime at all (UTC): a link
		// whose target is gone (mistyped) names no zone, and keeps it.
		notice("cannot read the zone of %s: it links to %s, which does not exist; the lines without --tz or CRON_TZ stay in %s",
			link, target, z.zone)
		return z.zone
	}
	zone, warning := systemZone()
	switch {
	case warning != "":
		notice("%s; the lines without --tz or CRON_TZ stay in %s", strings.TrimSuffix(warning, ": using UTC (pass --tz)"), z.zone)
	case !schedule.SameZone(zone, z.zone):
		also := ""
		if z.shared {
			also = ", but for the tasks the shared ledger holds in their own zone"
		}
		notice("the host's zone changed from %s to %s: the lines without --tz or CRON_TZ are read in %s%s", z.zone, zone, zone, also)
		z.zone = zone
	}
	return z.zone
}

// danglingZoneLink reports whether link is a symbolic link whose target
// does not exist and whose path names no zone either (Go's embedded zone
// data names /nonexistent/zoneinfo/Europe/Berlin; not Europe/Berln).
func danglingZoneLink(link string) (target string, dangling bool) {
	target, err := os.Readlink(link)
	if err != nil {
		return "", false
	}
	if _, err := os.Stat(link); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	abs := target
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(filepath.Dir(link), abs)
	}
	return target, zoneName(abs) == ""
}
