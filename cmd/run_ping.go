package cmd

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/catchup/catchup/internal/filetrust"
)

// checkedPing is u if it is an http(s) URL with a host; else "" and a
// warning that names no part of it (it may hold a token): the monitor
// never costs the job its run, but a typo must not wait for the first
// ping to show.
func checkedPing(u string, stderr io.Writer) string {
	if u == "" {
		return ""
	}
	if !isPingURL(u) {
		fmt.Fprintln(stderr, "catchup: the --ping URL is not an http:// or https:// URL with a host; not pinging")
		return ""
	}
	return u
}

// isPingURL reports whether u is an http(s) URL with a host.
func isPingURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// pingURL is the monitor's URL: --ping, else the first line of --ping-file,
// else CATCHUP_PING_URL; "" for none. A ping file that cannot be read is a
// warning: the monitor never costs the job its run; nor does one that is
// no regular file (a FIFO would block the fire before its job starts) or
// is larger than a URL needs (maxPingFile).
func pingURL(flag, file string, getenv func(string) string, stderr io.Writer) string {
	if file == "" {
		if flag != "" {
			return flag
		}
		return getenv("CATCHUP_PING_URL")
	}
	b, warnings, err := readPingFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "catchup: --ping-file: %v; not pinging\n", err)
		return ""
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "catchup: warning: %s\n", w)
	}
	u, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(u)
}

// maxPingFile bounds what catchup reads of a --ping-file: a URL.
const maxPingFile = 64 << 10

// readPingFile reads a --ping-file: a regular file of at most maxPingFile
// bytes, looked at before it is opened and opened only when it is one
// (filetrust.OpenIfRegular): a FIFO is refused, not waited on, and a device
// is never opened. It must be this user's or root's, writable by no one
// else (its group may, when that is its owner's private group), and
// reached through no other user's symlink, as CATCHUP_DB_FILE: its URL
// decides where the job's output tail goes (the end ping's body), so
// another user who could write it would receive this user's output.
// One that other users can read is used, with a warning (pingFileExposed);
// so is one in a directory that lets another user replace it
// (pingFileSwappable).
func readPingFile(name string) ([]byte, []string, error) {
	what := "ping file " + name
	if err := filetrust.PlantedLink("ping file", name, os.Geteuid()); err != nil {
		return nil, nil, err
	}
	f, fi, err := filetrust.OpenIfRegular(name)
	if err != nil {
		return nil, nil, err
	}
	if f != nil {
		defer f.Close()
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", name)
	}
	if err := filetrust.Owned(what, name, fi, os.Geteuid()); err != nil {
		return nil, nil, err
	}
	// Group write is its owner's alone in a user private group (Debian's
	// umask 002 makes such files 0664).
	if filetrust.WritableByOthers(fi, false) && (fi.Mode().Perm()&0o002 != 0 || !filetrust.PrivateGroup(fi)) {
		return nil, nil, &filetrust.Refusal{Name: what, Fix: "chmod go-w " + name,
			Reason: fmt.Sprintf("it is writable by others (mode %04o)", filetrust.ModeBits(fi.Mode()))}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPingFile+1))
	if err == nil && len(b) > maxPingFile {
		err = fmt.Errorf("%s is larger than %d KiB, more than a URL needs", name, maxPingFile>>10)
	}
	var warnings []string
	for _, w := range []string{pingFileExposed(name, fi), pingFileSwappable(name)} {
		if w != "" {
			warnings = append(warnings, w)
		}
	}
	return b, warnings, err
}

// pingFileSwappable warns of a ping file in a directory that lets another
// user replace it ("" when none does: filetrust.Swappable), naming the
// directory and the fix. The file is used: it is this user's or root's,
// checked at every read, so what another user can put in its place is
// only another file of theirs (a refusal) or of this user's (its first
// line then decides where the end ping, with the job's output tail,
// goes), or nothing (not pinging, said); a monitor never costs the job its
// run. Said once per fire, as the readable file is.
func pingFileSwappable(name string) string {
	dir, why := filetrust.Swappable(name, os.Geteuid())
	if dir == "" {
		return ""
	}
	return fmt.Sprintf("--ping-file %s: %s, a directory on its path, is %s: another user could replace the file, and the end ping carries the job's output; fix: %s",
		name, dir, why, swapFix(dir, why))
}

// pingFileExposed warns of a ping file other users can read ("" when none
// can): a monitor's URL may carry a secret token, and the file is meant to
// keep it out of ps. Its owner's private group reading it is no one else.
// The warning names the file and the fix, never the URL. The job still
// runs and pings: a token others could read is the operator's to rotate,
// and the monitor never costs the job its run.
func pingFileExposed(name string, fi os.FileInfo) string {
	perm := fi.Mode().Perm()
	if perm&0o004 == 0 && (perm&0o040 == 0 || filetrust.PrivateGroup(fi)) {
		return ""
	}
	return fmt.Sprintf("--ping-file %s is readable by other users (mode %04o), and a ping URL may carry a secret token; fix: chmod 600 %s",
		name, filetrust.ModeBits(fi.Mode()), name)
}
