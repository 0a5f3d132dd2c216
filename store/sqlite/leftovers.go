package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A new ledger is made under a temporary name beside its path
// (createLedger): ".NAME.new-PID-RANDOM", PID the creating process's. A
// process killed meanwhile leaves that file (and its -wal, -shm, -journal)
// behind. The next process to write the ledger, or to create it, removes
// those whose creator is gone: a live creator may still link its file into
// place. A pid taken since by another process keeps its file until that
// one ends too.
//
// leftoverMinAge guards a creator that this process cannot see: one in
// another pid namespace (a container sharing the ledger's directory),
// whose pid looks gone from here. A creation takes well under a second; a
// file untouched this long is no one's.
const leftoverMinAge = 10 * time.Minute

// tempPrefix is the start of the name of every temporary file of a new
// ledger at real.
func tempPrefix(real string) string { return "." + filepath.Base(real) + ".new-" }

// createTemp creates the file a new ledger at real is made in, named with
// this process's pid.
func createTemp(real string) (*os.File, error) {
	return os.CreateTemp(filepath.Dir(real), tempPrefix(real)+strconv.Itoa(os.Getpid())+"-*")
}

// removeLeftovers removes the temporary files of creations of the ledger
// at real whose process is gone. It is best effort: a file it cannot read
// or remove stays, and the ledger opens all the same.
func removeLeftovers(real string) {
	dir := filepath.Dir(real)
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := tempPrefix(real)
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); err == nil && alive(n) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > leftoverMinAge {
			os.Remove(p)
		}
	}
}

// alive reports whether process pid exists (signal 0 checks without
// sending: EPERM is a process of another user's).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
