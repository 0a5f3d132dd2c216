package catchup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// notesBeforeChange: a fire that ran while the ledger could not be
// reached (its note) stands for a slot of the schedule it fired under,
// and that slot counts as fired, whatever the schedule became since:
// recorded as the note's run, never recorded expired (schedule-changed)
// by the change, never named missed nor replayed, exactly as when the
// schedule did not change. So a change of a task's schedule or zone
// records this host's notes first, then leaves the old schedule behind:
//
//   - an edited crontab line's registration (registerEntry: scan's, or a
//     fire's that re-read its line) records the task's notes before the
//     change, while the registration a slotless note is read under
//     (noteSlot) is still the one its fire read; but for the edited
//     line's own fires (editedLineFires), which it records after the
//     change, under the registration they would have made had they
//     reached the ledger (a plain scan leaves them to the line's
//     registration: editedLinesFires); other tasks' notes wait for the
//     scan's own import, once every line is registered (newTasksFirst
//     still registers new lines first);
//   - whatever reads the old schedule's missed slots to leave them behind
//     (expireMissed: a --cron fire's change, a noted one's as scan records
//     it, scan --dry-run's, the daemon's reload) counts the notes not yet
//     in the ledger as the records they become (unrecordedNotes).

// notesRefusedAtChange: notes of unrecorded fires that this host cannot
// read or trust (refused: writable by others, not its own) may stand for
// any slot of the old schedule, and a slot recorded expired that a note
// then records as run would both have run and expired. So, while they are
// refused, whatever leaves the old schedule behind (expireMissed) knows
// none of its slots missed and records none, and says so (refusedNote), as
// when the ledger holds a time later than now. Invariant: no slot gets an
// expired record beside a noted run of it.

// refusedNote says that a change records none of the old slots expired,
// as this host's notes (refused for err) may stand for any of them.
func refusedNote(err error) string {
	return fmt.Sprintf("this host's notes of unrecorded fires are refused (%v), and may stand for any of its slots: "+
		"its missed slots are not known, and none gets an expired record (once the notes file is fixed, catchup backfill runs a past range)", err)
}

// errOwnersNotes marks an edited line of another user's that root's scan
// leaves to that user (ownersNotesFirst).
var errOwnersNotes = errors.New("left to its user")

// ownersNotesFirst is notesBeforeChange for root's scan of another user's
// edited line (sr), of registered task old. Root's scan cannot record that
// user's notes (it writes nothing of the user's, spool_users.go, and a note
// it recorded the user's next fire would record again), nor spare their
// slots alone: a note that names no slot is read under the registration
// it is recorded under, and after the change its slot is lost. So, while
// that user keeps a note of the task (trusted as usersNotes trusts it), or
// notes root's scan cannot trust, the line is not registered and the task
// not scanned: the user's next fire (which re-reads its line) or scan
// records the notes first, under the registration their fires read, then
// registers the change (registerEntry). Invariant: a slot a user's noted
// fire stands for is settled by that note, whoever scans; never recorded
// expired (schedule-changed) by root's scan beside it, nor replayed.
func ownersNotesFirst(m Machine, old store.Task, sr *shellReplay) error {
	if _, ok := sr.otherUID(); !ok || !readsUsersNotes(m) {
		return nil
	}
	m.Notice = nil
	notes, _, _, refused := usersNotes(m, nil, []store.Task{old}, []*shellReplay{sr})
	if len(refused) > 0 {
		return fmt.Errorf("task %s's line is %w until its notes of unrecorded fires can be trusted: %w",
			old.Name, errOwnersNotes, refused[0].err)
	}
	if notes == nil || len(notes.fires)+len(notes.outcomes) == 0 {
		return nil
	}
	return fmt.Errorf("task %s's line changes its schedule or zone, and is %w (%s): its next fire, or its scan, "+
		"records its notes of unrecorded fires of the task first, then the change; not scanned meanwhile",
		old.Name, errOwnersNotes, sr.user)
}

// errNotesHeld marks an edited line whose task has notes of unrecorded
// fires that another scan holds while it records them (notesHeldElsewhere).
var errNotesHeld = errors.New("left unregistered and not scanned while another scan records this host's notes " +
	"of its unrecorded fires (taken: NOTES.PID); a scan after that registers the change")

// notesHeldElsewhere reports whether another scan of this host holds fire
// notes that take reports true for (an edited line's notes to record
// before its change: oldLineNotes) while it records them: taken, under the
// pid of a live process that is not this one (NOTES.PID). Registered now,
// the change would read those notes' slots under the new schedule: a slot
// whose fire ran recorded expired, its note slotless (notesBeforeChange).
// A killed scan's taken notes are adopted by this scan's import, and
// notes it cannot read or trust are left to the change's own rule
// (refusedNote).
func notesHeldElsewhere(m Machine, take func(spoolEntry) bool) bool {
	for _, path := range notesPaths(m) {
		for _, f := range withTaken(path)[1:] {
			pid, err := strconv.Atoi(strings.TrimPrefix(f, path+"."))
			if err != nil || pid == m.PID || takerGone(pid, f) {
				continue // an older catchup's .failed, this process's, or a killed scan's
			}
			if entries, err := readSpool(f, m.UID); err == nil && slices.ContainsFunc(entries, take) {
				return true
			}
		}
	}
	return false
}

// hasTakenNotes reports whether a process took this host's notes (a scan
// that records them, or was killed at it: adoptAbandoned puts them back),
// or an older catchup left some in NOTES.failed. One read of the lock
// directory, and of the spare note directory.
func hasTakenNotes(m Machine) bool {
	for _, path := range notesPaths(m) {
		if len(withTaken(path)) > 1 {
			return true
		}
	}
	return false
}

// notesPaths are this host's notes files: the lock directory's, and the
// spare note directory's and its stand-ins' (spareDirs).
func notesPaths(m Machine) []string {
	paths := []string{filepath.Join(m.LockDir, spoolName)}
	dirs, _ := spareDirs(m)
	for _, dir := range dirs {
		paths = append(paths, spareNotesIn(m, dir))
	}
	return paths
}

// lineChanges reports whether a crontab line's expr in zone changes
// registered task old's schedule or zone, as registerEntry registers it
// (another spelling of either is no change).
func lineChanges(old store.Task, expr, zone string) bool {
	return old.RetiredAt.IsZero() && old.Schedule != "" &&
		(schedule.ExprName(old.Schedule, expr) != old.Schedule || schedule.ZoneName(old.TZ, zone) != old.TZ)
}

// unrecordedNotes are the fire notes of this host not yet in the ledger,
// as the readers count them (readPendingNotes): with those this process is
// recording (its taken NOTES.PID: a noted change registered as scan records
// the notes, rescheduleNoted, comes before the records of the notes) and
// those another scan holds. Read quietly: the command that records them
// says what is wrong with them.
func unrecordedNotes(m Machine) *pendingNotes {
	m.Notice = nil
	return readPendingNotes(m)
}

// newTasksFirst orders a scan's crontab entries when this host keeps notes
// of unrecorded fires: the lines of tasks the ledger does not know (or
// retired) first, so that they are registered before an edited line's
// registration records the notes (notesBeforeChange), as a first fire's
// note needs its line registered; the rest after, each in its order.
func newTasksFirst(ctx context.Context, st store.Store, m Machine, entries []sourcedEntry) []sourcedEntry {
	if !hasNotes(m) {
		return entries
	}
	var first, known []sourcedEntry
	for _, e := range entries {
		t, err := st.Task(ctx, e.Task)
		if err == nil && t.RetiredAt.IsZero() {
			known = append(known, e)
		} else if err == nil || errors.Is(err, store.ErrNotFound) {
			first = append(first, e)
		} else {
			known = append(known, e) // as before: its registration meets the error
		}
	}
	return append(first, known...)
}

// editedLineFires reports the notes of this host that fires of task old's
// crontab line, edited to expr in zone, left once edited: its fire notes
// without a slot (a line's fire that could not read the ledger read
// neither its registration nor its line), neither by hand nor carrying a
// --cron registration, at a time the old schedule does not explain
// (lineFireOffSchedule: reaching the ledger, that fire would have re-read
// its line and registered the edit: relearnLine) and the new one does.
// Such a note stands for a slot of the new schedule: recorded after the
// edit's registration, under it, never before it as a late fire of the
// old schedule's slot, which it would settle a second time (its own fire
// noted too) or settle though it never ran. A fire at a time of both
// schedules is the same slot under either: recorded before, with the old
// line's. Nil when either schedule cannot be read. zr reads the line's
// zone file (registerEntry's).
func editedLineFires(m Machine, old store.Task, expr, zone string, zr *zoneReader) func(spoolEntry) bool {
	was, err := storedSchedule(m, nil, old)
	s, serr := zr.parseLine(expr, zone) // the edited line's zone file as its user (nil: this user)
	if err != nil || serr != nil || was == nil || s == nil {
		return nil
	}
	return func(e spoolEntry) bool {
		return e.Task == old.Name && e.RunID == 0 && e.Slot.IsZero() && !e.ByHand && e.Register == nil &&
			!lineFireOfSchedule(was, e.StartedAt) && lineFireOfSchedule(s, e.StartedAt)
	}
}

// lineFireOfSchedule reports whether schedule s explains a line's fire at
// t: cron-shaped or early for a slot (not lineFireOffSchedule), or one of
// cron's catch-up fires of a slot that merges the wall times a
// spring-forward skipped (schedule.CatchUpWindow: 02:30 in Berlin fired at
// 03:00 CEST), whose minute the expression does not match, and which
// stands for that slot as a fire that reads the ledger does.
func lineFireOfSchedule(s *schedule.Schedule, t time.Time) bool {
	if !lineFireOffSchedule(s, t) {
		return true
	}
	prev, ok := s.Prev(t)
	return ok && t.Sub(prev) <= s.CatchUpWindow(prev)
}

// notOf is the notes f does not report (every note when f is nil).
func notOf(f func(spoolEntry) bool) func(spoolEntry) bool {
	if f == nil {
		return nil
	}
	return func(e spoolEntry) bool { return !f(e) }
}

// oldLineNotes reports the notes an edited line's registration records
// before the change: task's, but for the edited line's own fires (edited:
// editedLineFires). Those of other tasks wait for the scan's own import,
// once every line is registered: another edited line's fires, recorded
// here, would be recorded under that line's old schedule.
func oldLineNotes(task string, edited func(spoolEntry) bool) func(spoolEntry) bool {
	return func(e spoolEntry) bool { return e.Task == task && (edited == nil || !edited(e)) }
}

// recordEditedFires records, once an edited line's change is registered,
// the notes of its own fires (edited: editedLineFires), as fires of the
// new registration. Notes it cannot record stay for the next scan, which
// says why (a fire's next scan, or this scan's own import of the notes).
func recordEditedFires(ctx context.Context, st store.Store, m Machine, tol time.Duration, what string,
	edited func(spoolEntry) bool) {
	if edited == nil || !hasNotes(m) {
		return
	}
	if _, fault, err := recordNotesOf(ctx, st, m, tol, what, edited); err != nil || fault != nil {
		m.notice("%v", cmp.Or(err, fault))
	}
}

// without is n without the fire notes f reports (n itself when f is nil).
func (n *pendingNotes) without(f func(spoolEntry) bool) *pendingNotes {
	if n == nil || f == nil {
		return n
	}
	c := *n
	c.fires = nil
	for _, e := range n.fires {
		if !f(e) {
			c.fires = append(c.fires, e)
		}
	}
	return &c
}
