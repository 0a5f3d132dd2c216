// Package sqlite is the single-host ledger: one SQLite file, in WAL mode,
// safe for many catchup processes at once.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	driver "modernc.org/sqlite"

	"github.com/catchup/catchup/store"
)

// Ledger is a SQLite ledger. It implements store.Store.
//
// Durability: synchronous=FULL. In WAL mode that fsyncs the WAL on every
// commit, so a recorded outcome survives a power cut; with NORMAL the last
// commits could vanish after one, and a slot that did run would be replayed.
type Ledger struct {
	db         *sql.DB
	path       string
	real       string // the real path opened
	opened     fileID // the identity of the file opened (see unmoved)
	openedSize int64  // its size then: a ledger cut below its header since was truncated
	wal        fileID // the identity of its -wal then, which holds every commit since the last checkpoint
	shm        fileID // the identity of its -shm then, the WAL index this process has mapped (see unmoved)
	lostAtRest string // what its -wal lost while nobody had it open (lostAtRest), or ""
	// creating: the new ledger's file under its temporary name
	// (createLedger), the only file checkSchema gives the tables to; any
	// other without them is refused (notALedger).
	creating bool
	// reader: opened by OpenReader, for a command that only reads; it
	// reads a ledger it cannot turn to WAL as it is (checkSchema,
	// openImmutable).
	reader bool

	prepared preparedStatements
	outcomes atomic.Int64 // outcomes recorded by this process (see recorded)
	ws       walSync      // the sync of a claim's and an outcome's commits (walsync.go)
}

// ErrNotALedger is returned for a file that is not a catchup ledger.
var ErrNotALedger = errors.New("file is not a catchup ledger (corrupt or not SQLite)")

// notALedgerFix is the way out of a file SQLite cannot read at the
// ledger's path, as the other refusals of a file catchup did not make name
// theirs.
const notALedgerFix = "if --db, CATCHUP_DB or CATCHUP_STATE_DIR names the wrong file, correct it, " +
	"else restore it from a backup (docs/ledger.md, backing up and restoring)"

// errBusy is returned when other processes kept the ledger locked for
// longer than a write waits.
var errBusy = errors.New("ledger stayed locked by other processes")

// busyTimeoutMS bounds how long a write waits for another process's write
// transaction. Writes are tiny, so this is only reached under heavy load.
const busyTimeoutMS = 30000

// Open opens (creating if needed) the ledger at path and brings its schema
// up to date. A new directory is created 0700 and a new file 0600, whatever
// the umask; a new file appears whole (createLedger), and what a creation
// killed midway left is removed (removeLeftovers). An empty file, and a
// SQLite file without the ledger's tables, are refused (errEmptyLedger,
// notALedger), never made a ledger, as is a path that names a directory
// (store.ErrLedgerIsDir).
//
// A ledger file (or its -wal, -shm) that another user planted is refused:
// see trustLedgerFiles. The file is opened at its real path.
func Open(ctx context.Context, path string) (*Ledger, error) { return open(ctx, path, false, false) }

func open(ctx context.Context, path string, mustExist, reader bool) (*Ledger, error) {
	if err := store.RefuseDirectory(path); err != nil {
		return nil, err
	}
	real, err := trustLedgerFiles(path, os.Geteuid())
	if err != nil {
		return nil, err
	}
	if err := ensureLedger(ctx, path, real, mustExist); err != nil {
		return nil, err
	}
	if _, err := trustLedgerFiles(real, os.Geteuid()); err != nil {
		return nil, err // planted in the meantime
	}
	if err := checkWALOwner(path, real); err != nil {
		return nil, err
	}
	lost := lostAtRest(path, real) // before SQLite's first connection resets the -shm
	var lostSince, lostUntil time.Time
	if lost != "" {
		lostSince, lostUntil = lostWindow(real)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	// WAL mode is set by checkSchema, once the file is found to be a
	// ledger: a file refused is left as it was.
	q.Add("_pragma", "synchronous(FULL)")
	syncWithFdatasync()
	q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walAutocheckpoint))
	// Immediate transactions take the write lock at BEGIN: a deferred one
	// that upgrades later fails with SQLITE_BUSY under concurrent writers
	// instead of waiting.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", ledgerDSN(real, q))
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	// A CLI process does one thing at a time; one connection keeps the
	// pragmas applied once.
	db.SetMaxOpenConns(1)
	s := &Ledger{db: db, path: path, real: real, reader: reader, lostAtRest: lost}
	// Turning a new file to WAL takes an exclusive lock without SQLite's busy
	// handler: when processes create the ledger at once, all but one get
	// SQLITE_BUSY straight away. Retry as long as a busy write would wait.
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for {
		err = s.checkSchema(uncancelled(ctx))
		if !errors.Is(err, errBusy) || ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil && s.reader && cannotWriteCode(err) {
		if idb := s.openImmutable(ctx, q); idb != nil {
			db.Close()
			db, err = idb, nil
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	keepWALOnClose(uncancelled(ctx), db)
	// The file as opened (and made a ledger): writes check that the path
	// still leads to it.
	s.opened, s.openedSize, _ = identify(real)
	s.wal, _, _ = identify(real + "-wal")
	s.shm, _, _ = identify(real + "-shm")
	s.openWAL()
	if lost != "" {
		markLost(real, lostSince, lostUntil) // scan replays nothing while it stands (lostmark.go)
	}
	return s, nil
}

// ledgerDSN is the driver's name of the SQLite file at real with the
// query q. It is a URI: the path is escaped, or a '?', '#' or '%' in it
// would make SQLite open (and create) some other file.
func ledgerDSN(real string, q url.Values) string {
	return "file:" + (&url.URL{Path: real}).EscapedPath() + "?" + q.Encode()
}

// uncancelled is ctx without its cancellation, for every call into the
// ledger: a SQLite call is a local read or write bounded by the busy
// timeout, and one cut by a stop (SIGTERM to scan or the daemon) would roll
// back a claim or an outcome that the stop is about to need. It is also
// cheaper: given a cancellable context, the driver starts a goroutine to
// watch it for every statement (4% of a run's time). A write only waiting
// for the lock may give up, when its caller asks (store.GiveUpWaitsWhen,
// see begin): it has written nothing yet.
func uncancelled(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// OpenExisting opens the ledger at path like Open, but only when it is
// there: a command that reads must not create an empty ledger and report
// that nothing was missed. A missing file is store.ErrNoLedger; an empty
// one, or one without the ledger's tables, is refused like a corrupt one
// (errEmptyLedger, notALedger).
func OpenExisting(ctx context.Context, path string) (*Ledger, error) {
	return open(ctx, path, true, false)
}

// OpenReader is OpenExisting for a command that only reads: a ledger it
// cannot write is read as it is (see reader), where a command that writes
// is refused at the open, naming the file and the fix.
func OpenReader(ctx context.Context, path string) (*Ledger, error) {
	return open(ctx, path, true, true)
}

// Close closes the ledger.
func (s *Ledger) Close() error {
	serr := s.closeSync()
	if s.unmoved() == nil { // through a stale index it would cut off others' frames
		s.checkpointLongWrite()
	}
	s.prepared.close()
	if err := s.db.Close(); err != nil {
		return err
	}
	return serr
}

// resultCode is the primary SQLite result code of err (0 if it is not
// SQLite's), with SQLITE_IOERR_SHMSIZE, a -shm that could not be grown,
// read as the full disk it comes from (SQLITE_FULL).
func resultCode(err error) int {
	var se *driver.Error
	if !errors.As(err, &se) {
		return 0
	}
	if se.Code() == 10|19<<8 { // SQLITE_IOERR_SHMSIZE
		return 13
	}
	return se.Code() & 0xff
}

// cannotWriteCode reports whether err is SQLite's for a ledger this
// process cannot write: SQLITE_READONLY, SQLITE_CANTOPEN (a -wal it cannot
// create) or SQLITE_FULL (resultCode).
func cannotWriteCode(err error) bool {
	switch resultCode(err) {
	case 8, 13, 14:
		return true
	}
	return false
}

// wrap names the ledger file in every error and turns SQLite's result codes
// into the package's errors where a caller acts on them.
func (s *Ledger) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	switch resultCode(err) {
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		return fmt.Errorf("%s %s: %w; %s", op, s.path, ErrNotALedger, notALedgerFix)
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return fmt.Errorf("%s %s: %w", op, s.path, errBusy)
	case 8, 14: // SQLITE_READONLY (a file or the directory), SQLITE_CANTOPEN
		return s.cannotWrite(op, err)
	case 13: // SQLITE_FULL
		return fmt.Errorf("%s %s: %w; free space on the filesystem holding %s", op, s.path, err, filepath.Dir(s.path))
	}
	if ioFault(err) {
		if hint := readOnlyFSHint(s.real); hint != "" {
			return fmt.Errorf("%s %s: %w; %s", op, s.path, err, hint)
		}
	}
	return fmt.Errorf("%s %s: %w", op, s.path, err)
}
