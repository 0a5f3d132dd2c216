package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/catchup/catchup/internal/filetrust"
)

// The spare note directory of a user other than root is in a shared
// sticky directory (/dev/shm/catchup-UID), where another user can make it
// first: the user can neither use it (privateDir refuses it) nor remove
// it. Its notes then go to a stand-in, a private directory of the user's
// beside it under an unpredictable name (NOTEDIR.XXXXXXXX, made mode 0700
// as os.MkdirTemp makes it), and every reader looks in each stand-in of
// the user's alone as well as in the spare note directory: notes written
// to one while the squatted directory stood are found after root removed
// it too. A stand-in made by someone else is not this user's: never read,
// never written.

// errSquatted is the spare note directory dir, made by another user (uid
// owner) than this one (uid).
type errSquatted struct {
	dir        string
	owner, uid int
	meanwhile  string // where notes go meanwhile: a stand-in, "" when none is made yet
}

func (e *errSquatted) Error() string {
	where := e.meanwhile
	if where == "" {
		where = "a private directory " + e.dir + ".XXXXXXXX"
	}
	return fmt.Sprintf("the note directory %s was made by %s, not by this user (uid %d), and only root can remove it: "+
		"ask root to remove it; meanwhile notes of unrecorded fires go to %s", e.dir, filetrust.Describe(e.owner), e.uid, where)
}

// squatted reports the spare note directory dir when another user than
// uid made it (a directory, a file or a symlink of theirs); nil when it is
// uid's or missing.
func squatted(dir string, uid int) *errSquatted {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil
	}
	if o := filetrust.Owner(fi); o != uid {
		return &errSquatted{dir: dir, owner: o, uid: uid}
	}
	return nil
}

// standIns are the stand-ins of m's spare note directory that are m's
// user's alone (directories, owned by it, mode 0700), sorted.
func standIns(m Machine) []string {
	if m.NoteDir == "" {
		return nil
	}
	parent, prefix := filepath.Dir(m.NoteDir), filepath.Base(m.NoteDir)+"."
	if !othersMayWrite(parent, m.UID) {
		return nil // no one else could have made the spare note directory: no stand-in is needed
	}
	d, err := os.Open(parent)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var dirs []string
	for _, name := range names {
		if !strings.HasPrefix(name, prefix) || len(name) == len(prefix) {
			continue
		}
		dir := filepath.Join(parent, name)
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() && filetrust.Owner(fi) == m.UID && fi.Mode().Perm()&0o077 == 0 {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// spareDirs are the spare note directories to read m's notes from: the
// spare note directory unless another user made it (squat, then said: no
// note of this user's can be there), and its stand-ins of this user's.
func spareDirs(m Machine) (dirs []string, squat *errSquatted) {
	if m.NoteDir == "" {
		return nil, nil
	}
	ins := standIns(m)
	if squat = squatted(m.NoteDir, m.UID); squat == nil {
		dirs = append(dirs, m.NoteDir)
	} else if len(ins) > 0 {
		squat.meanwhile = ins[0]
	}
	return append(dirs, ins...), squat
}

// spareDirToWrite is the spare note directory a note of m goes to: the
// spare note directory, made if missing; when another user made it, a
// stand-in of this user's (the first, else a new one), said.
func spareDirToWrite(m Machine) (string, error) {
	squat := squatted(m.NoteDir, m.UID)
	if squat == nil {
		return m.NoteDir, privateDir(m.NoteDir, m.UID, true)
	}
	// A stand-in only where privateDir would make the directory itself.
	if err := checkDirs("the note directory "+m.NoteDir, filepath.Dir(m.NoteDir), true, []int{0, m.UID}); err != nil {
		return "", err
	}
	if ins := standIns(m); len(ins) > 0 {
		squat.meanwhile = ins[0]
	} else {
		dir, err := os.MkdirTemp(filepath.Dir(m.NoteDir), filepath.Base(m.NoteDir)+".")
		if err != nil {
			return "", fmt.Errorf("%w; make a private note directory beside it: %w", squat, err)
		}
		squat.meanwhile = dir
	}
	if err := privateDir(squat.meanwhile, m.UID, false); err != nil {
		return "", err
	}
	m.notice("warning: %v", squat)
	return squat.meanwhile, nil
}

// othersMayWrite reports whether a user other than uid and root may make
// an entry in dir (a shared sticky /dev/shm, a directory of another
// user's, or one writable by its group or by all), or cannot tell: only
// there can the spare note directory be another user's, and a stand-in
// wanted. A fire of root's (/run/catchup: /run is root's, mode 0755) so
// lists no directory.
func othersMayWrite(dir string, uid int) bool {
	fi, err := os.Stat(dir)
	if err != nil {
		return true
	}
	o := filetrust.Owner(fi)
	return fi.Mode().Perm()&0o022 != 0 || (o != 0 && o != uid)
}
