package catchup

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// lineRegistration is the source scan --crontab (or a line's fire)
// registers a crontab line's task with: "crontab:PATH:LINE", then whose
// line it is, the user it runs as: " uid=N user=NAME" (" uid=N" for a uid
// without a name). Readers of the file part (lineSource, findLine) read up
// to the last colon, which the suffix has none of, so an older catchup
// reads such a source as it reads one without it. A name with a space, a
// colon or a control character (a directory service's: "ad:alice",
// "alice smith") is recorded escaped, before the uid:
// " user=ESCAPED uid=N" (escapedName): the suffix keeps no colon, and an
// older reader, which takes everything after "uid=N " as the name, reads
// the uid and no name, as from a registration that recorded none (before,
// such a name was not recorded at all).
func lineRegistration(path string, line int, m Machine, sr *shellReplay) string {
	uid, name := lineRunsAs(m, sr)
	switch {
	case name == "":
		return fmt.Sprintf("crontab:%s:%d uid=%s", path, line, uid)
	case needsEscape(name):
		return fmt.Sprintf("crontab:%s:%d user=%s uid=%s", path, line, escapedName(name), uid)
	}
	return fmt.Sprintf("crontab:%s:%d uid=%s user=%s", path, line, uid, name)
}

// needsEscape reports whether a user's name cannot stand as it is in a
// line's registration: a space ends it for a reader, a colon moves the
// end of the file part, a control character is no text.
func needsEscape(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == ' ' || c == ':' || c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// escapedName is name with each of its bytes that needsEscape refuses,
// and each %, as %XX (hex, upper case).
func escapedName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == ' ' || c == ':' || c == '%' || c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// lineRunsAs is the uid and name of the user the line replayed through
// sr runs as: sr's other user, else this process's.
func lineRunsAs(m Machine, sr *shellReplay) (uid, name string) {
	if sr != nil && sr.as != nil {
		return sr.as.Uid, sr.as.Username
	}
	return strconv.Itoa(m.UID), filetrust.UserName(m.UID)
}

// lineRegistrant is whose line a crontab line's task is, as its source
// recorded it at registration (lineRegistration): the uid, and the user's
// name ("" when not recorded). ok is false for a source that records none:
// any other task's, or a crontab line's an older catchup registered.
func lineRegistrant(source string) (uid, name string, ok bool) {
	src, found := strings.CutPrefix(source, "crontab:")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(src, ":")
	if i < 0 {
		return "", "", false
	}
	before, rest, found := strings.Cut(src[i+1:], " uid=")
	if !found {
		return "", "", false
	}
	uid, rest, _ = strings.Cut(rest, " ")
	if _, err := strconv.Atoi(uid); err != nil {
		return "", "", false
	}
	if _, esc, escaped := strings.Cut(before, " user="); escaped && rest == "" { // lineRegistration's escaped form
		if name, err := url.PathUnescape(esc); err == nil {
			return uid, name, true
		}
		return uid, "", true
	}
	name, _ = strings.CutPrefix(rest, "user=")
	return uid, name, true
}

// rootsLine reports whether crontab line task t is root's, so that a root
// process may run its stored --notify-cmd: its registration says uid 0;
// one that says no user (an older catchup's) is root's only while its file
// is root's, and no symlink of another user's leads to it. A line found on
// stdin, whose file is not known, is nobody's.
func rootsLine(t store.Task) bool {
	if uid, _, ok := lineRegistrant(t.Source); ok {
		return uid == "0"
	}
	path := lineSource(t.Source)
	if path == "" {
		return false
	}
	lfi, err := os.Lstat(path)
	if err != nil || filetrust.Owner(lfi) != 0 {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && filetrust.Owner(fi) == 0
}

// lineUserChanged refuses the line of task t in the crontab at path, to
// be run through sr, when the uid it runs as is the one its registration
// recorded (lineRegistrant) but that uid's user now has another name: a
// user deleted whose uid useradd gave another, whose crontab kept outside
// cron's spool (its owner's uid is all that says whose it is) would run as
// that other user, in their home (cron never reads such a file; the
// spool's are refused by name). A line that names its user (a system
// crontab's) runs as that name; a registration that records no name (an
// older catchup's) is as before.
func lineUserChanged(m Machine, t store.Task, path string, sr *shellReplay) error {
	uid, name, ok := lineRegistrant(t.Source)
	if !ok || name == "" || path == "" || lineSource(t.Source) != path {
		return nil
	}
	nowUID, now := lineRunsAs(m, sr)
	if nowUID != uid || now == name {
		return nil
	}
	why, fix := fmt.Sprintf("uid %s has no user now (userdel?)", uid), "remove it"
	if now != "" {
		why = fmt.Sprintf("uid %s is now %s's (a uid reused after userdel?)", uid, now)
		fix = fmt.Sprintf("remove it, or if %s is %s renamed, catchup forget %s and scan --crontab %s again", now, name, t.Name, path)
	}
	return &filetrust.Refusal{Name: "crontab " + path,
		Reason: fmt.Sprintf("the line of task %s was registered as %s's (uid %s), but %s", t.Name, name, uid, why), Fix: fix}
}
