package catchup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
)

// fireElsewhere is how a run --cron task's working directory is changed.
const fireElsewhere = "fire the task once from a directory of your own (the fire registers it)"

// trustedWorkDir refuses the working directory a replay or a backfill reads
// from the ledger when another user controls it: a directory of /tmp that
// was cleaned away and made again by someone else, holding their ./job.sh,
// would run their file as the user who registered the task (root, for the
// packaged scan). The rules are the crontab's (filetrust): the directory,
// at its real path, is owned by uid or root and writable by no one else
// (its group may write it when it is its owner's private group, as with
// Debian's umask 002);
// every directory above it likewise, sticky ones (/tmp) allowed; no
// symlink on the way is another user's. A directory that does not exist is
// refused too (the command could not start there anyway: 126), so that no
// one makes it between this check and the start. A fire of catchup run
// runs where it is started, and is not checked: its invoker chose the
// directory. A fire of catchup daemon is (RefusedWorkDir): the line's
// home is where its replays start too.
func trustedWorkDir(dir string, uid int) error {
	_, err := checkedWorkDir(dir, uid)
	return err
}

// checkedWorkDir is trustedWorkDir, which also returns the directory as it
// saw it, trusted (nil for "": no directory), for stillSeen.
func checkedWorkDir(dir string, uid int) (os.FileInfo, error) {
	if dir == "" {
		return nil, nil
	}
	name := "working directory " + dir
	if err := filetrust.PlantedLink(name, dir, uid); err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		// Gone (or unreadable): refused here, not left to the runner,
		// since another user could make it between this check and the start.
		return nil, &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("it cannot be used: %v", errors.Unwrap(err)),
			Fix: "make it again, or " + fireElsewhere}
	}
	var seen os.FileInfo
	for p, self := real, true; ; p, self = filepath.Dir(p), false {
		fi, err := os.Stat(p)
		if err != nil { // gone since EvalSymlinks: refused, as a missing one is
			return nil, &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("%s cannot be used: %v", p, errors.Unwrap(err)),
				Fix: "make it again, or " + fireElsewhere}
		}
		var r *filetrust.Refusal
		if err := filetrust.Owned(name, p, fi, uid); errors.As(err, &r) {
			r.Fix = "remove it if you did not make it, or " + fireElsewhere
			if !self {
				r.Reason = fmt.Sprintf("%s is owned by uid %d, not by uid %d running catchup nor root", p, filetrust.Owner(fi), uid)
			}
			return nil, r
		}
		if othersCanWrite(fi, !self) {
			what := "it is"
			if !self {
				what = p + " is"
			}
			return nil, &filetrust.Refusal{Name: name,
				Reason: fmt.Sprintf("%s writable by others (mode %04o)", what, filetrust.ModeBits(fi.Mode())),
				Fix:    "chmod go-w " + p}
		}
		if self {
			seen = fi
		}
		if p == filepath.Dir(p) {
			return seen, nil
		}
	}
}

// othersCanWrite reports whether someone besides fi's owner can write it:
// other users, or a group that is not its owner's private group. With
// sticky, a sticky directory does not count (filetrust.WritableByOthers).
func othersCanWrite(fi os.FileInfo, sticky bool) bool {
	if !filetrust.WritableByOthers(fi, sticky) {
		return false
	}
	return fi.Mode().Perm()&0o002 != 0 || !filetrust.PrivateGroup(fi)
}

// RefusedWorkDir is why a job of m's user, argv, must not start in dir
// (nil when it may): another user controls it, or it is missing
// (trustedWorkDir), or the directory below it that a relative command
// through directories starts from (./sub/job.sh). The daemon checks the
// home a line's fire starts in, as a scan checks a replay's registered
// directory; seen is dir as the check saw it, trusted, for the job's
// start (RunRequest.DirSeen: stillSeen), as refusedToStart's is for a
// replay's.
func RefusedWorkDir(m Machine, dir string, argv []string) (seen os.FileInfo, why error) {
	seen, err := checkedWorkDir(dir, m.UID)
	if err == nil {
		err = relativeDirRefused(dir, programOf(argv), m.UID)
	}
	if err != nil {
		seen = nil
	}
	return seen, lineHomeFix(err)
}

// lineHomeFix is err with the fix for a daemon line, whose working
// directory is its home (HOME in its crontab, else the daemon's): a fire
// from another directory does not change it, another HOME does.
func lineHomeFix(err error) error {
	var r *filetrust.Refusal
	if errors.As(err, &r) {
		r.Fix = strings.Replace(r.Fix, fireElsewhere, "set HOME in the crontab, above the line, to a directory of your own", 1)
	}
	return err
}

// stillSeen reports whether dir is still the directory seen (by
// checkedWorkDir, trusted, as a scan was about to replay a slot): the same
// file, with the same owner, group, mode and change time (a chmod, a chown
// or a new entry in it changes that). Then the job's start need not check
// it again in full: one stat, not one per directory up to /. Another user
// can change where dir leads only by replacing a directory on the way,
// which makes dir another file, or by a directory above it made writable
// by others, which only its owner (this user or root: the check saw that)
// can do. Anything else sends it to the full check. seen nil: never seen.
func stillSeen(dir string, seen os.FileInfo) bool {
	if seen == nil {
		return false
	}
	fi, err := os.Stat(dir)
	if err != nil || !os.SameFile(fi, seen) || fi.Mode() != seen.Mode() {
		return false
	}
	now, ok1 := fi.Sys().(*syscall.Stat_t)
	was, ok2 := seen.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && now.Uid == was.Uid && now.Gid == was.Gid && now.Ctim == was.Ctim
}
