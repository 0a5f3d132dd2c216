package sqlite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/catchup/catchup/store"
)

// The loss lostAtRest finds is said once, by the first command to open the
// ledger: on a cron host, the next fire, whose stderr goes to cron's mail.
// The next scan then replayed, saying nothing, every slot whose record was
// in the lost frames: they ran a second time. So the first opener leaves a
// mark beside the ledger (lostMarkSuffix) naming the window the loss spans
// (from the database file's last write, its last checkpoint, to the -shm's,
// the last commit), and scan replays nothing while it stands
// (LostRecords): the operator runs the slots of the window that did not
// run, and removes the mark.

// lostMarkSuffix names the mark beside the ledger file.
const lostMarkSuffix = "-wal-lost"

// lostWindow is when the records lostAtRest found lost were written: after
// the database file's last write (its last checkpoint) and up to the
// -shm's (the last commit). Read before SQLite opens the ledger.
func lostWindow(real string) (since, until time.Time) {
	if fi, err := os.Stat(real); err == nil {
		since = fi.ModTime().UTC().Truncate(time.Second)
	}
	if fi, err := os.Stat(real + "-shm"); err == nil {
		until = fi.ModTime().UTC().Add(time.Second).Truncate(time.Second)
	}
	return since, until
}

// markLost leaves the mark of a loss spanning since to until beside the
// ledger at real; best effort (a reader on a read-only directory cannot:
// it still says the loss once).
func markLost(real string, since, until time.Time) {
	f, err := os.OpenFile(real+lostMarkSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %s\n", since.Format(time.RFC3339), until.Format(time.RFC3339))
	f.Close()
}

// LostWindow is, while the mark of a -wal lost at rest stands beside the
// ledger, the window its lost records were written in (zero ends when the
// mark cannot be read); false when there is none.
func (s *Ledger) LostWindow() (store.LostSpan, bool) {
	mark := s.real + lostMarkSuffix
	f, err := os.OpenFile(mark, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return store.LostSpan{}, false
	}
	span := store.LostSpan{Mark: mark}
	if err == nil {
		b, _ := io.ReadAll(io.LimitReader(f, 128))
		f.Close()
		if t := strings.Fields(string(b)); len(t) == 2 {
			since, err1 := time.Parse(time.RFC3339, t[0])
			until, err2 := time.Parse(time.RFC3339, t[1])
			if err1 == nil && err2 == nil {
				span.Since, span.Until = since.UTC(), until.UTC()
			}
		}
	}
	return span, true
}

// LostRecords is, while the mark of a -wal lost at rest stands beside the
// ledger, why scan must not replay from it and the fix; "" when there is
// none.
func (s *Ledger) LostRecords() string {
	span, ok := s.LostWindow()
	if !ok {
		return ""
	}
	return fmt.Sprintf("ledger %s lost its records %s with its -wal (deleted or cut short while no catchup had it open): "+
		"the slots of that time may have run, and a replay would run them again; fix: run those that did not "+
		"(catchup run --task TASK --slot SLOT -- COMMAND), then remove %s", s.path, span.Written(), span.Mark)
}
