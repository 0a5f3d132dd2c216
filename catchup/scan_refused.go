package catchup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// refusedToStart is why no replay of task t can start in this scan, for a
// reason that is the task's, not a slot's: the working directory an argv
// task registered, refused (trustedWorkDir). Checked once, before any of
// its slots is claimed, and again before each later one; seen is the
// directory as the check saw it, which each job's start makes sure it
// still is (lifecycle.execute, stillSeen: one stat, the full check only
// if it changed). nil: its replays may start.
//
// A crontab line's refusals of the same kind (its crontab or the line
// refused now, the user it runs as unreadable: shellReplay.err,
// credential) fail its first replay with exit 125, recording nothing, and
// stopsReplays leaves the later slots for the next scan. A command not
// found or not executable (126, 127) is not known before the job is
// started: the runner's exec fails, and that run is recorded failed, as a
// job that exits so is.
func refusedToStart(m Machine, t store.Task) (seen os.FileInfo, why error) {
	if t.Shell != "" {
		return nil, nil
	}
	seen, why = checkedWorkDir(t.Dir, m.UID)
	if why == nil {
		why = commandDirRefused(m, t)
	}
	if strings.HasPrefix(t.Source, "daemon:") {
		why = lineHomeFix(why)
	}
	return seen, why
}

// commandDirRefused checks, of an argv task whose command is a relative
// path through directories (./sub/job.sh), the directory that path leads
// to from the registered one, as the registered one is checked: the
// command runs from there, and another user's directory on the way could
// hold, or be made to hold, a file of theirs.
func commandDirRefused(m Machine, t store.Task) error {
	return relativeDirRefused(t.Dir, programOf(t.Argv), m.UID)
}

// programOf is the program argv starts: a shell's command line's (a
// daemon line's SHELL -c LINE) first word, else argv[0].
func programOf(argv []string) string {
	switch {
	case len(argv) == 3 && argv[1] == "-c" && strings.HasSuffix(filepath.Base(argv[0]), "sh"):
		return crontab.ShellProgram(argv[2])
	case len(argv) > 0:
		return argv[0]
	}
	return ""
}

// relativeDirRefused checks the directory a relative command path through
// directories (./sub/job.sh) leads to from dir, as dir is checked (for
// uid). A crontab line's command is a word the shell has yet to expand:
// one it would change ($VAR, ~, a glob) is not looked at.
func relativeDirRefused(dir, command string, uid int) error {
	if dir == "" || filepath.IsAbs(command) || !strings.Contains(command, "/") || strings.ContainsAny(command, "$`*?[") ||
		strings.HasPrefix(command, "~") {
		return nil
	}
	sub := filepath.Join(dir, filepath.Dir(command))
	if sub == filepath.Clean(dir) {
		return nil // ./job.sh: the directory itself
	}
	if _, err := checkedWorkDir(sub, uid); err != nil {
		// The refusal itself is renamed, not wrapped: a daemon line's or
		// a crontab line's fix is set on it after (lineHomeFix).
		var r *filetrust.Refusal
		if errors.As(err, &r) {
			r.Name = "its command " + command + " starts from " + r.Name
			return r
		}
		return fmt.Errorf("its command %s starts from %w", command, err)
	}
	return nil
}

// replayRefused is refusedToStart of a scan's or a backfill's replays of
// task t, a crontab line's too (sr: how it replays): a line replays in its
// home (the crontab's HOME above it, else its user's), checked as an argv
// task's directory is, for the user the line runs as (root's scan of
// another user's line: that user's, or root's), with the fix a line's
// home takes. A line's home is not seen for its start: the line runs in
// a process of its own, as its user.
func replayRefused(m Machine, t store.Task, sr *shellReplay) (seen os.FileInfo, why error) {
	if t.Shell == "" {
		return refusedToStart(m, t)
	}
	if sr != nil {
		if why := lineUserChanged(m, t, lineSource(t.Source), sr); why != nil {
			return nil, why // whose line it was: not the user with its uid now
		}
	}
	if sr == nil || sr.dir == "" {
		return nil, nil
	}
	uid := m.UID
	if other, ok := sr.otherUID(); ok {
		uid = other
		why = sr.homeRefusedAs(m)
	}
	if why == nil {
		_, why = checkedWorkDir(sr.dir, uid)
	}
	if why == nil {
		why = relativeDirRefused(sr.dir, sr.program, uid)
	}
	return nil, lineHomeFix(why)
}

// homeRefusedAs refuses the home of another user's line (sr.as) that its
// user cannot enter, or the directory its relative command starts from
// (./sub/job.sh), looked at as that user (accessAs) before root's checks
// look at them with root's rights: root's scan found a directory behind
// one of root's trusted (root's) and started the replay there, failed
// (exit 126, recorded in the ledger the user reads), and refused one not
// there as missing, recording nothing: the ledger told the user which
// exists. Refused alike, as the user sees them, nothing recorded.
func (sr *shellReplay) homeRefusedAs(m Machine) error {
	cred, err := sr.credential()
	if err != nil {
		return err
	}
	dirs := []string{sr.dir}
	if p := sr.program; !filepath.IsAbs(p) && strings.Contains(p, "/") && !strings.ContainsAny(p, "$`*?[~") {
		dirs = append(dirs, filepath.Join(sr.dir, filepath.Dir(p)))
	}
	for _, d := range dirs {
		if err := m.asUser.access(d, cred, unix.X_OK); err != nil {
			return &filetrust.Refusal{Name: "working directory " + d,
				Reason: fmt.Sprintf("as %s, it cannot be used: %v", sr.user, err), Fix: fireElsewhere}
		}
	}
	return nil
}

// startRefused is why no replay of task t can start here now
// (replayRefused: its working directory refused, or a crontab line's
// home, its line re-read through c as a plain scan re-reads it), nil
// when one may: nothing records it of the slots it leaves (a scan's
// replays, a daemon line's fires), so ls --missed and explain check it
// when they read them. A line that cannot be re-read says so elsewhere
// (the scan's replay fails with it): not a refusal here.
func (c *crontabs) startRefused(t store.Task) error {
	var sr *shellReplay
	if t.Shell != "" {
		if sr = c.shellReplay(t); sr.err != nil {
			return nil
		}
	}
	_, why := replayRefused(c.m, t, sr)
	return why
}

// leaveRefused leaves the slots of task it would replay (replay, and the
// slots a coalesced replay would fold: spans) missed, none of them tried,
// for why (refusedToStart): one warning for the task, not one per slot;
// nothing is recorded, so the next scan tries them again, and replays them
// once the operator has fixed what why says. Refused makes the scan fail
// (exit 1), as a failed replay does. The real scan counts the folds left
// as it gives them back (settleFolds); a dry run counts them here.
func (ts *TaskScan) leaveRefused(task string, why error, replay []time.Time, spans map[int64]replaySpan, dry bool) {
	folds := 0
	for _, s := range replay {
		folds += len(spans[s.Unix()].fold)
	}
	n := len(replay) + folds
	ts.Left += len(replay)
	ts.Refused += n
	slots, verb := fmt.Sprintf("%d missed slots", n), "are"
	if n == 1 {
		slots, verb = "1 missed slot", "is"
	}
	if dry {
		verb = "would be"
		ts.Skipped, ts.Left = ts.Skipped-folds, ts.Left+folds
		ts.Actions = slices.DeleteFunc(ts.Actions, func(a SlotAction) bool { return a.Action == ActionDropped })
	}
	w := fmt.Sprintf("task %s: its %s %s left for the next scan, not replayed: %v", task, slots, verb, why)
	ts.Warnings = append(ts.Warnings, w)
	ts.StartRefused = StartRefusal{Why: why.Error(), Warning: w}
}

// reasonRefusedStart is a backfill's slot left by leaveRefused.
const reasonRefusedStart = "not run: refused before it started (above); nothing recorded"

// leaveRefused is scan's leaveRefused for a backfill: its slots are left,
// none claimed nor run, and why is said once, not at each slot.
func (tb *TaskBackfill) leaveRefused(m Machine, task string, why error, slots []time.Time, dry bool) {
	verb := "are"
	if dry {
		verb = "would be"
	}
	if len(slots) == 1 && !dry {
		verb = "is"
	}
	m.notice("task %s: its %d %s %s left, not run: %v", task, len(slots), plural(len(slots), "slot", "slots"), verb, why)
	tb.Left += len(slots)
	tb.Refused += len(slots)
	for _, s := range slots {
		tb.Actions = append(tb.Actions, SlotAction{Slot: s, Action: ActionLeft, Reason: reasonRefusedStart})
	}
}
