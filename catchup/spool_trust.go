package catchup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/internal/filetrust"
)

// The notes of unrecorded fires say which slots ran: a note that another
// user wrote could make a slot look done, so that it never runs. A notes
// file is read only when this user alone could have written it. One that
// is refused stays where it is, as it is (never taken, merged or copied
// into a file that would pass), until its owner has looked at it; and,
// since its notes may stand for any slot, scan replays nothing meanwhile
// (recordNotes).

// takenNotes is the name under which process pid takes the notes file at
// path while it records them (spool_taken.go).
func takenNotes(path string, pid int) string { return fmt.Sprintf("%s.%d", path, pid) }

// trustNotes refuses the notes file at path (fi, found without following
// a symlink) unless uid alone could have written it: a regular file of
// uid's, writable by no one else.
func trustNotes(path string, fi os.FileInfo, uid int) error {
	name := "notes of unrecorded fires " + path
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return &filetrust.Refusal{Name: name, Reason: "it is a symlink, which catchup does not follow here",
			Fix: "remove it if you did not put it there: rm " + path}
	case !fi.Mode().IsRegular():
		return &filetrust.Refusal{Name: name, Reason: "it is not a regular file",
			Fix: "remove it if you did not put it there"}
	}
	if o := filetrust.Owner(fi); o != uid && o != -1 {
		return &filetrust.Refusal{Name: name,
			Reason: fmt.Sprintf("it is owned by %s, not by uid %d running catchup: another user could have written notes that make slots look done",
				filetrust.Describe(o), uid),
			Fix: fmt.Sprintf("inspect it: if its notes are this host's fires, chown %d %s and chmod 600 %s; else remove it", uid, path, path)}
	}
	if filetrust.WritableByOthers(fi, false) {
		return &filetrust.Refusal{Name: name,
			Reason: fmt.Sprintf("it is writable by others (mode %04o), who could have written notes that make slots look done",
				filetrust.ModeBits(fi.Mode())),
			Fix: "check that its notes are this host's fires, then chmod 600 " + path}
	}
	return nil
}

// checkNotes refuses the notes file at path, if there is one, as
// trustNotes does; none there is no error.
func checkNotes(path string, uid int) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the notes of unrecorded fires: %w", err)
	}
	return trustNotes(path, fi, uid)
}

// openNotes opens the notes file at path for reading, once trustNotes
// accepts it (a symlink is refused, never followed; a FIFO put in its
// place, which would block the open until someone writes it, is opened
// without waiting, and refused).
func openNotes(path string, uid int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		if cerr := checkNotes(path, uid); cerr != nil {
			return nil, cerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the notes of unrecorded fires: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = trustNotes(path, fi, uid)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readSpool reads a notes file that only uid may have written. A line
// that is not a note is skipped.
func readSpool(path string, uid int) ([]spoolEntry, error) {
	out, _, err := readSpoolOf(path, uid, 0)
	return out, err
}

// readSpoolOf is readSpool of a file of at most maxSize bytes (0: any):
// a larger one is refused (notesTooLarge), and one that grows past it
// while read. read is how many bytes it read.
func readSpoolOf(path string, uid int, maxSize int64) (out []spoolEntry, read int64, err error) {
	f, err := openNotes(path, uid)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var r io.Reader = f
	if maxSize > 0 {
		fi, err := f.Stat()
		if err == nil && fi.Size() > maxSize {
			return nil, 0, notesTooLarge(path)
		}
		r = io.LimitReader(f, maxSize+1)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, ok := noteOfLine(sc.Bytes()); ok {
			out = append(out, e)
		}
	}
	read, _ = f.Seek(0, io.SeekCurrent)
	if err := sc.Err(); err != nil {
		return out, read, fmt.Errorf("read the notes of unrecorded fires %s: %w", path, err)
	}
	if maxSize > 0 && read > maxSize {
		return nil, read, notesTooLarge(path)
	}
	return out, read, nil
}

// notesTooLarge refuses a notes file of another user's past the
// maxUserNotesSize root reads of them (their notes files together).
func notesTooLarge(path string) error {
	return &filetrust.Refusal{Name: "notes of unrecorded fires " + path,
		Reason: fmt.Sprintf("it is larger than root reads of another user's notes (%d MiB, all their notes files together)", maxUserNotesSize>>20),
		Fix:    "let its user's own scan record its notes (catchup scan, run as that user), or remove it if no fire of theirs wrote it: rm " + path}
}

// notesTooMany refuses a notes file of another user's past the
// maxUserNotesFiles root reads of them.
func notesTooMany(path string) error {
	return &filetrust.Refusal{Name: "notes of unrecorded fires " + path,
		Reason: fmt.Sprintf("it is one of more notes files than root reads of another user's (%d, all their notes files together)", maxUserNotesFiles),
		Fix: "let its user's own scan record its notes (catchup scan, run as that user), or remove the files no fire of theirs wrote: " +
			filepath.Dir(path)}
}

// noteOfLine is the note a line of a notes file holds. A line that is no
// note may be a note torn by a write cut short (a full disk; an older
// catchup's put-back did not truncate it back) with the next whole note
// appended to it: that note (the line from a later `{"` on) is taken.
// JSON escapes every quote in a string, so a note's objects start at its
// `{"`s only. Only a `{"` whose object ends the line, nested no deeper
// than a note's, is parsed (endsLine): parsing from every `{"` to the
// line's end made a line of nested objects (a user's notes file, which
// root's scan and readers read) cost time in the square of its length,
// 52 s for one line of 1 MiB.
func noteOfLine(line []byte) (spoolEntry, bool) {
	for i := 0; i >= 0 && i < len(line); {
		var e spoolEntry
		if endsLine(line[i:]) && json.Unmarshal(line[i:], &e) == nil && e.Task != "" && taskname.Check(e.Task) == nil {
			return e, true
		}
		next := bytes.Index(line[i+1:], []byte(`{"`))
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return spoolEntry{}, false
}

// maxNoteDepth bounds the nesting of a note's JSON: the note, its
// registration, its argv (3), with room to spare.
const maxNoteDepth = 8

// endsLine reports whether b starts with a JSON object, nested at most
// maxNoteDepth deep, that ends b but for trailing blanks: the only object
// that can be a whole note of the line. It reads b only as far as that
// object goes, or as its nesting stays within maxNoteDepth: each byte of a
// line is read from at most maxNoteDepth+1 of its `{"`s.
func endsLine(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped byte
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxNoteDepth {
				return false
			}
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return len(bytes.TrimRight(b[i+1:], " \t\r\n")) == 0
			}
		}
	}
	return false
}
