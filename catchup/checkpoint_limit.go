package catchup

import (
	"errors"
	"fmt"
	"strings"
)

// MaxCheckpoint bounds a checkpoint note (catchup progress --note), in
// bytes. A note is a short text a replay gets back as one environment
// variable, CATCHUP_CHECKPOINT; Linux refuses to exec a command with an
// environment string over 128 KiB (E2BIG), so a note near that would make
// every replay of its slot fail to start. 4 KiB leaves room for a key, an
// offset or a short list, not for the job's state itself (a file is the
// place for that, the note naming it).
const MaxCheckpoint = 4096

// CheckNote returns why note cannot be recorded as a checkpoint, or nil.
func CheckNote(note string) error {
	switch {
	case len(note) > MaxCheckpoint:
		return fmt.Errorf("--note is %d bytes: a checkpoint is at most %d bytes (keep the job's state in a file, and name it in the note)",
			len(note), MaxCheckpoint)
	case strings.IndexByte(note, 0) >= 0:
		return errors.New("--note has a NUL byte, which no environment variable can hold")
	}
	return nil
}

// passableCheckpoint is the checkpoint a replay of slot gets, from the one
// the ledger holds: "" when that one cannot be passed on (written by an
// older catchup, or another host's through a shared ledger), said in a
// notice. A job that cannot be started because of a stored note would
// fail every replay of its slot without running; afresh, it runs.
func (l *lifecycle) passableCheckpoint(note, slot string) string {
	err := CheckNote(note)
	if err == nil {
		return note
	}
	why := fmt.Sprintf("is %d bytes, over the limit of %d", len(note), MaxCheckpoint)
	if len(note) <= MaxCheckpoint {
		why = "has a NUL byte"
	}
	l.m.notice("the checkpoint of slot %s of %s %s: not passed on, the replay starts afresh (no CATCHUP_CHECKPOINT)",
		slot, l.req.Task, why)
	return ""
}
