package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/catchup/taskname"
)

// zoneinfoDir is where the IANA zone files live.
const zoneinfoDir = "/usr/share/zoneinfo"

// hostZone names the zone this process's clock reads in, as a zone name a
// later reader can load: TZ when set (empty means UTC, as for every
// program), else the zone /etc/localtime links to (CATCHUP_LOCALTIME names
// another link; tests use it), else /etc/timezone, else the zone file
// /etc/localtime is a copy of. warning is set when TZ was not usable or no
// name could be found (then "UTC", which is what Go falls back to).
func hostZone() (name, warning string) {
	if tz, ok := os.LookupEnv("TZ"); ok {
		if strings.TrimPrefix(tz, ":") == "" {
			return "UTC", ""
		}
		if n := zoneName(tz); n != "" {
			return n, ""
		}
		warning = fmt.Sprintf("ignoring TZ=%s: not a known time zone", taskname.QuotedUpTo(tz, 128))
	}
	name, w := systemZone()
	if warning != "" && w != "" {
		warning += "; "
	}
	return name, warning + w
}

// systemZone names the zone /etc/localtime gives (CATCHUP_LOCALTIME names
// another link; tests use it), whatever TZ says: the zone cron reads a
// crontab line without CRON_TZ in. warning is set when no name could be
// found (then "UTC").
func systemZone() (name, warning string) {
	link := localtimeLink()
	if target, err := os.Readlink(link); err == nil {
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(link), target)
		}
		if n := zoneName(target); n != "" {
			return n, ""
		}
	}
	data, err := schedule.ReadZoneFile(link) // never a FIFO, nor without bound
	if errors.Is(err, fs.ErrNotExist) {
		return "UTC", "" // no /etc/localtime: UTC, as Go reads it
	}
	if err != nil {
		return "UTC", "cannot read " + link + ": " + err.Error() + ": using UTC (pass --tz)"
	}
	if link == "/etc/localtime" {
		// Debian's companion of a copied /etc/localtime.
		if b, err := os.ReadFile("/etc/timezone"); err == nil {
			if n := zoneName(strings.TrimSpace(string(b))); n != "" {
				return n, ""
			}
		}
	}
	if n := schedule.ZoneOfFile(data); n != "" {
		return n, ""
	}
	return "UTC", "cannot name the zone of " + link + ": using UTC (pass --tz)"
}

// cronZone names the zone cron reads a line without CRON_TZ in: the one
// /etc/localtime gives, whatever TZ says; TZ (hostZone) only where there is
// no /etc/localtime (a container), as for every program.
func cronZone() string {
	if _, err := os.Lstat(localtimeLink()); err != nil {
		z, _ := hostZone()
		return z
	}
	z, _ := systemZone()
	return z
}

// localtimeLink is /etc/localtime, or the link CATCHUP_LOCALTIME names.
func localtimeLink() string {
	if link := os.Getenv("CATCHUP_LOCALTIME"); link != "" {
		return link
	}
	return "/etc/localtime"
}

// zoneName turns "Europe/Berlin", or any spelling ZoneSpelling reads as a
// name (a zone file's path, a link to one, a copy of one), into a loadable
// zone name; "" when it is not one.
func zoneName(s string) string {
	s = schedule.ZoneSpelling(s)
	if s == "" || filepath.IsAbs(s) || s == "Local" {
		return ""
	}
	if _, err := schedule.LoadZone(s); err != nil {
		return ""
	}
	return s
}
