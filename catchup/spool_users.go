package catchup

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/catchup/catchup/store"
	"golang.org/x/sys/unix"
)

// Root's scan replays other users' crontab lines, each as its user, whose
// fires keep their notes of unrecorded fires where that user's catchup
// keeps them (Machine.NotesOf), which no scan of root's records. Before it
// judges those lines' tasks it reads those notes as the readers read this
// host's (spool_read.go), taking, moving and writing nothing in the user's
// directories (the user can change them under root's feet), and counts
// them as that user's next fire or scan records them: a slot whose fire
// ran unrecorded is not run again, one whose fire did not run is missed
// with the cause ledger-unreachable. A note is trusted for the tasks of
// that user's lines alone, never for root's or another user's, and only
// from a notes file of that user's alone, in a lock directory of that
// user's alone (trustNotes and lockDir with the user's uid; a symlink is
// never followed, a file not a regular one never opened). A notes file
// refused may stand for any slot of the user's: none of the user's tasks
// is replayed meanwhile, and scan says so, naming the file and the fix.
// Root's readers count those notes by the same rule (readUsersNotes), so
// that they show what that scan will do.

// maxUserNotesSize bounds the notes files of another user's that root reads,
// all their lock directories together: the user writes them as they like,
// and a sparse file of 4 GiB with a line every 512 KiB (32 MiB of their
// disk) was read whole, 16 s of a root scan, of each reader and of every
// scrape of a root daemon's /metrics, with no bound but the user's disk
// (counted afresh in each lock directory, a crontab whose every line names
// a state directory of its own had root read as much again per line). One
// past it is refused, as an untrusted one is: until that user's own scan records it,
// root replays none of their lines.
const maxUserNotesSize = 64 << 20

// maxUserNotesFiles bounds the notes files of another user's that root
// reads, all their lock directories together: a fire's notes file, the
// names processes take it under while they record it (NOTES.PID), one per
// lock directory of theirs. The user may name as many as they like, empty
// (hard links: nothing of their disk), each opened, checked and read at
// every reading, none costing maxUserNotesSize a byte: 60,000 took a root
// scan, each reader and each scrape 4.5 s. One past it is refused too.
const maxUserNotesFiles = 64

// noteHome is where one user's fires keep their notes of this ledger.
type noteHome struct {
	uid              int
	lockDir, noteDir string
}

// notesRefusal is a user whose notes of unrecorded fires were refused,
// the tasks of that user's lines, and why.
type notesRefusal struct {
	user  string
	tasks []string
	err   error
}

// notReplaying is what scan says of a user whose notes it refused.
func (r notesRefusal) notReplaying() string {
	return fmt.Sprintf("not replaying the lines of %s (%s) until its notes of unrecorded fires can be trusted: %v",
		r.user, strings.Join(r.tasks, ", "), r.err)
}

// notCounting is what a reader says of a user whose notes it refused: the
// slots it shows missed may have run, and scan replays none meanwhile.
func (r notesRefusal) notCounting() string {
	return fmt.Sprintf("not counting the notes of unrecorded fires of %s (%s): %v; "+
		"a slot of theirs shown missed may have run, and scan replays none of them until the notes can be trusted",
		r.user, strings.Join(r.tasks, ", "), r.err)
}

// usersNotes reads the notes of the users whose lines srs replay (srs[i]
// replays tasks[i]; sr.as: another user's line) into notes (nil: a new
// one, if there are any), each counted for its user's tasks alone. It
// returns the notes, the tasks and replays left to judge (without those
// of a user whose notes were refused), and each user refused.
func usersNotes(m Machine, notes *pendingNotes, tasks []store.Task, srs []*shellReplay) (
	*pendingNotes, []store.Task, []*shellReplay, []notesRefusal) {
	if m.NotesOf == nil {
		return notes, tasks, srs, nil
	}
	owned := map[int]map[string]bool{} // each user's tasks
	homes := map[noteHome]bool{}
	refused := map[int]error{}
	users := map[int]string{}
	whose := map[int]*shellReplay{} // a line of each user's: their credential
	for i, sr := range srs {
		uid, ok := sr.otherUID()
		if !ok {
			continue
		}
		if owned[uid] == nil {
			owned[uid] = map[string]bool{}
		}
		owned[uid][tasks[i].Name] = true
		users[uid], whose[uid] = sr.user, sr
		db := sr.db
		if db == "" {
			db = m.DB
		}
		lockDir, noteDir, err := m.NotesOf(db, uid, sr.userEnv(m))
		if err != nil {
			refused[uid] = fmt.Errorf("cannot find the notes of unrecorded fires of %s: %w", sr.user, err)
			continue
		}
		homes[noteHome{uid, lockDir, noteDir}] = true
	}
	left := map[int]*notesBudget{} // what root may still read of each user's notes
	for _, h := range sortedHomes(homes) {
		if refused[h.uid] != nil {
			continue
		}
		if !reachableAs(m, whose[h.uid], h.lockDir) {
			continue // none of their fires could keep notes there: nothing of theirs to read
		}
		if left[h.uid] == nil {
			left[h.uid] = &notesBudget{bytes: maxUserNotesSize, files: maxUserNotesFiles}
		}
		mu := m
		mu.UID, mu.LockDir, mu.NoteDir = h.uid, h.lockDir, h.noteDir
		found, _, err := keptNotesOf(mu, left[h.uid])
		if err != nil {
			refused[h.uid] = err
			continue
		}
		var theirs []spoolEntry
		for _, e := range found.fires {
			if owned[h.uid][e.Task] {
				theirs = append(theirs, e)
			}
		}
		for _, e := range found.outcomes {
			if owned[h.uid][e.Task] {
				theirs = append(theirs, e)
			}
		}
		if len(theirs) > 0 {
			if notes == nil {
				notes = &pendingNotes{outcomes: map[int64]spoolEntry{}}
			}
			notes.add(theirs)
		}
	}
	if len(refused) == 0 {
		return notes, tasks, srs, nil
	}
	var keptTasks []store.Task
	var keptSrs []*shellReplay
	held := map[int][]string{}
	for i, sr := range srs {
		if uid, ok := sr.otherUID(); ok && refused[uid] != nil {
			held[uid] = append(held[uid], tasks[i].Name)
			continue
		}
		keptTasks, keptSrs = append(keptTasks, tasks[i]), append(keptSrs, srs[i])
	}
	var refusals []notesRefusal
	for _, uid := range slices.Sorted(maps.Keys(held)) {
		refusals = append(refusals, notesRefusal{users[uid], held[uid], refused[uid]})
	}
	return notes, keptTasks, keptSrs, refusals
}

// reachableAs reports whether the user of line sr can reach the lock
// directory dir (accessAs): one behind a directory they cannot enter holds
// nothing their fires wrote, and root does not look at it with its rights
// (its refusal of a directory there named it and its owner, to whoever
// reads root's warnings, where nothing there says nothing). Anything else
// (there or not, theirs or not) is looked at as before: they can see it.
func reachableAs(m Machine, sr *shellReplay, dir string) bool {
	cred, err := sr.credential()
	if err != nil || cred == nil {
		return true
	}
	err = m.asUser.access(dir, cred, unix.X_OK)
	return !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM)
}

// readUsersNotes adds to notes, for a reader run by root (ls, explain,
// calendar, metrics, history, show), the notes of the users whose crontab lines
// registered tasks, as root's scan counts them (usersNotes, through each
// task's line re-read as scan re-reads it): so that a reader shows what
// that scan will do. A user's notes refused are said, naming the file and
// the fix; that user's slots are shown as the ledger holds them. The
// lines are read through cts, each crontab once (nil: a new reading).
func readUsersNotes(m Machine, cts *crontabs, notes *pendingNotes, tasks []store.Task) *pendingNotes {
	if !readsUsersNotes(m) {
		return notes
	}
	var theirs []store.Task
	var srs []*shellReplay
	for _, t := range tasks {
		if t.Shell == "" || !t.RetiredAt.IsZero() {
			continue
		}
		if cts == nil {
			cts = newCrontabs(m)
		}
		if sr := cts.shellReplay(t); sr.as != nil && sr.err == nil {
			theirs, srs = append(theirs, t), append(srs, sr)
		}
	}
	notes, _, _, refused := usersNotes(m, notes, theirs, srs)
	for _, r := range refused {
		m.notice("warning: %s", r.notCounting())
	}
	return notes
}

// readsUsersNotes says whether a reader run with m counts other users'
// notes (readUsersNotes): run by root alone, as a scan not run by root
// replays its own user's lines alone.
func readsUsersNotes(m Machine) bool {
	return m.UID == 0 && m.NotesOf != nil
}

// otherUID is the uid of the user sr runs its line as, when that is not
// the scanning user.
func (sr *shellReplay) otherUID() (int, bool) {
	if sr == nil || sr.as == nil {
		return 0, false
	}
	uid, err := strconv.Atoi(sr.as.Uid)
	return uid, err == nil
}

func sortedHomes(homes map[noteHome]bool) []noteHome {
	out := make([]noteHome, 0, len(homes))
	for h := range homes {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b noteHome) int {
		return cmp.Or(cmp.Compare(a.uid, b.uid), cmp.Compare(a.lockDir, b.lockDir), cmp.Compare(a.noteDir, b.noteDir))
	})
	return out
}
