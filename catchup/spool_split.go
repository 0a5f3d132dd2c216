package catchup

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
)

// A scan takes a whole notes file at once (importNotes); a caller that may
// record only some of its notes now (an edited crontab line's registration
// records the old line's fires before the change, the edited line's after
// it: editedLineFires) gives the others back. Each note stays in exactly
// one place for the next scan: the notes file, or the taken file
// (NOTES.PID, which a later scan adopts if this one dies), until the
// ledger holds it; never lost, never recorded twice (but for the window
// between the ledger's commit and the taken file's removal, which
// recording every note has too).

// partSuffix names, after a taken file's name, the notes splitNotes keeps
// for later; a scan killed before it renamed them over the taken file
// leaves them, a copy of notes in that file, which the scan that adopts it
// removes (adoptAbandoned).
const partSuffix = ".part"

// splitNotes returns the notes of entries taken (renamed to taken) that
// take reports true for (all of them when take is nil), to record now, and
// part, a file beside taken holding the others alone ("" when none), written
// before anything is recorded: once the rest is recorded, it replaces taken
// in one rename and is given back (leaveNotes). An error leaves nothing
// recorded and every note in taken.
func splitNotes(taken string, entries []spoolEntry, take func(spoolEntry) bool) (now []spoolEntry, part string, err error) {
	if take == nil {
		return entries, "", nil
	}
	var b []byte
	for _, e := range entries {
		if take(e) {
			now = append(now, e)
			continue
		}
		line, err := json.Marshal(e)
		if err != nil {
			return nil, "", err
		}
		b = append(append(b, line...), '\n')
	}
	if len(b) == 0 {
		return now, "", nil
	}
	part = taken + partSuffix // never a taken file's name (NOTES.PID), nor read as notes
	if err := os.Remove(part); err != nil && !os.IsNotExist(err) {
		return nil, "", fmt.Errorf("keep the notes of unrecorded fires for later: %w", err)
	}
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("keep the notes of unrecorded fires for later: %w", err)
	}
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(part)
		return nil, "", fmt.Errorf("keep the notes of unrecorded fires for later: %w", err)
	}
	return now, part, nil
}

// leaveNotes ends the import of the notes taken (renamed to taken) from
// path once those to record now are in the ledger: taken is removed, or,
// with part (splitNotes), replaced by it in one rename, and the notes not
// recorded given back to path for the next import (putBack).
func leaveNotes(taken, path, part string, uid int) error {
	if part == "" {
		return os.Remove(taken)
	}
	if err := os.Rename(part, taken); err != nil {
		// taken still holds the recorded notes beside the others: the
		// next scan would record them a second time.
		return fmt.Errorf("the notes in %s are recorded but for those in %s: move that file over it: %w", taken, part, err)
	}
	return putBack(taken, path, uid)
}
