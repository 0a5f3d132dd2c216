package schedule

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// zoneDirs are where LoadLocation looks for zone files on Unix, in its order.
var zoneDirs = []string{"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}

// ZoneSpelling is the tz database name of a zone spelled as TZ takes it,
// which is how cron takes CRON_TZ (cronie sets it as TZ): without a leading
// ':' (POSIX's "implementation-defined" form, which glibc reads as a name
// or a file), and for the path of a zone file, its name below the zoneinfo
// directory (/usr/share/zoneinfo/Asia/Kathmandu is Asia/Kathmandu; the
// posix/ and right/ trees name the same zones, in a name too:
// right/Asia/Kathmandu is Asia/Kathmandu), also through links to it
// (/etc/localtime), and for a name of the tree that links out of it
// (Debian's localtime, :localtime, /usr/share/zoneinfo/localtime, all
// links to /etc/localtime), the zone of the file it links to, as for that
// file (never the name localtime, which follows the host's zone wherever
// it goes: slots_tz_localtime_name), and for a copy of a zone file, the zone whose file it
// is a copy of. A path is read as the kernel reads it: a doubled slash or
// a ./ in it is the same file; one that ends in / (or /.) names no file,
// and is returned as it is, for LoadZone to refuse (cron's glibc reads no
// zone from it, and fires the line in UTC; taken for "", it was the
// host's zone). "Local" is "": no zone
// named, so the zone cron fires the line in (CRON_TZ, else cron's own),
// the same for every command that reads it. Anything else is returned as
// it is, for LoadZone to take or refuse.
func ZoneSpelling(s string) string {
	return zoneSpelling(s, 0)
}

// zoneSpelling is ZoneSpelling, depth links out of the tree in.
func zoneSpelling(s string, depth int) string {
	s = strings.TrimPrefix(s, ":")
	if filepath.IsAbs(s) {
		if strings.HasSuffix(s, "/") || strings.HasSuffix(s, "/.") {
			return s
		}
		if !strings.Contains(s, "..") { // which the kernel reads through links, and Clean would not
			s = filepath.Clean(s)
		}
	}
	if filepath.IsAbs(s) && !strings.Contains(s, "zoneinfo/") {
		// A link into the zoneinfo tree, as /etc/localtime is: its zone.
		if target, err := filepath.EvalSymlinks(s); err == nil && strings.Contains(target, "zoneinfo/") {
			s = target
		} else if name := zoneCopy(s); name != "" {
			return name
		}
	}
	if i := strings.LastIndex(s, "zoneinfo/"); i >= 0 && (i == 0 || s[i-1] == '/') {
		s = s[i+len("zoneinfo/"):]
	} else if filepath.IsAbs(s) {
		return s
	}
	// The posix/ and right/ trees name the zones of the tree, as a name
	// (TZ=right/Europe/Berlin) as well as a path. right/'s files count leap
	// seconds, which Go reads into their transitions and glibc into every
	// wall time: a spring-forward slot 27 s off second 0 (zones_right_tree_name).
	s = inTree(s)
	if s == "Local" {
		return ""
	}
	if target := outOfTree(s); target != "" && depth < 4 {
		// Debian's zoneinfo/localtime links to /etc/localtime: the host's
		// zone, whatever it is then. As a name, the task followed the host's
		// zone wherever it went, its slots moving with no schedule change.
		return zoneSpelling(target, depth+1)
	}
	return s
}

// outOfTree is the file a name of the zoneinfo tree links to outside the
// tree (Debian's localtime, a link to /etc/localtime), "" if its file (the
// first found, in LoadLocation's order) is none.
func outOfTree(name string) string {
	if name == "" || filepath.IsAbs(name) || strings.Contains(name, "..") {
		return ""
	}
	for _, d := range zoneDirsNow() {
		link, err := os.Readlink(d + name)
		if errors.Is(err, syscall.EINVAL) {
			return "" // a file of the tree, not a link (most names: one call)
		}
		if err != nil {
			if _, serr := os.Lstat(d + name); serr == nil {
				return "" // a file of the tree, not a link
			}
			continue
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(d+name), link)
		}
		if link = filepath.Clean(link); strings.HasPrefix(link, d) {
			return "" // a link in the tree (UTC to Etc/UTC): a name of its own
		}
		return link
	}
	return ""
}

// inTree is the zone a name in the zoneinfo tree's posix/ or right/
// subtree names: posix/Europe/Berlin and right/Europe/Berlin are
// Europe/Berlin.
func inTree(s string) string {
	return strings.TrimPrefix(strings.TrimPrefix(s, "posix/"), "right/")
}

// SameZone reports whether two zone names name one zone: the same name, or
// two names of the tz database whose zone files are identical (its links:
// UTC and Etc/UTC, US/Eastern and America/New_York), or two zones (names of
// the tz database, POSIX TZ strings) whose offsets from UTC are the same at
// every instant from 1970 on (Etc/GMT and Etc/UTC, whose files differ in
// the abbreviation alone; UTC0 and UTC): every slot of a schedule falls at
// the same instant in both (sameOffsets). "" and "Local" are the same only
// as themselves; names that are no zone are different.
func SameZone(a, b string) bool {
	if a == b {
		return true
	}
	// A right/ or posix/ name an older catchup registered as given is
	// the zone's name now (ZoneSpelling): right/'s file differs (leap seconds).
	a, b = inTree(a), inTree(b)
	if a == b && a != "" {
		return true
	}
	da, db := zoneFile(a), zoneFile(b)
	if da != nil && db != nil && bytes.Equal(da, db) {
		return true
	}
	la, lb := zoneOf(a, da), zoneOf(b, db)
	return la != nil && lb != nil && sameOffsets(la, lb)
}

// ZoneName is the name to register for zone when registered names the
// task's zone so far: registered when both name one zone (another name is
// no schedule change), else zone.
func ZoneName(registered, zone string) string {
	if SameZone(registered, zone) {
		return registered
	}
	return zone
}

// zoneDirsNow are the directories LoadLocation looks for a zone name in:
// $ZONEINFO's, then zoneDirs.
func zoneDirsNow() []string {
	if z := os.Getenv("ZONEINFO"); z != "" {
		return append([]string{strings.TrimSuffix(z, "/") + "/"}, zoneDirs...)
	}
	return zoneDirs
}

// zoneFile returns the zone file of an IANA name, nil if none is found.
func zoneFile(name string) []byte {
	if name == "" || name == "Local" || filepath.IsAbs(name) || strings.Contains(name, "..") {
		return nil
	}
	for _, d := range zoneDirsNow() {
		if b, err := ReadZoneFile(d + name); err == nil && bytes.HasPrefix(b, []byte("TZif")) {
			return b
		}
	}
	return nil
}
