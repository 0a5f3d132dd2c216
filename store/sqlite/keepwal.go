package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"reflect"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The WAL stays at rest. By default the last connection to close
// checkpoints the WAL into the database and deletes it: for a `catchup run`
// that is 4 of its 6 fsyncs (the checkpoint syncs the WAL and the database;
// the next run re-creates the WAL, syncing its header and the directory).
// With SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE a run costs its two commits' fsyncs,
// and the WAL is checkpointed when it reaches walAutocheckpoint pages, by
// whichever commit crosses it. Every committed frame is in the WAL, synced
// (synchronous=FULL), so nothing durable depends on the close; the next
// process to open the ledger reads the WAL back (SQLite's recovery), which
// is why walAutocheckpoint is small. The database file alone is then not the
// whole ledger: copy it with `catchup backup` (docs/ledger.md).
//
// modernc.org/sqlite exposes no call for this option, so keepWALOnClose
// reaches the connection's handle by reflection. If the driver's connection
// ever changes shape, it does nothing and the close checkpoints as before
// (TestWALKeptAtRest then fails, so that the change is seen).

// walAutocheckpoint bounds the WAL, in pages: a run writes about 5, so a
// checkpoint (2 fsyncs, and 1 for the WAL's next header) comes every dozen
// runs or so, and the recovery at open reads at most about this many pages.
const walAutocheckpoint = 64

// A process that records many outcomes (a scan replaying a backlog, the
// daemon, a backfill) would checkpoint every dozen slots at that bound, 20%
// more fsyncs per slot. After longWriterOutcomes outcomes it checkpoints at
// SQLite's default of 1000 pages instead, and once more when it closes the
// ledger, so that the next process's recovery stays short.
const (
	longWriterOutcomes         = 8
	walAutocheckpointLongWrite = 1000
)

// recorded counts an outcome this process wrote; the longWriterOutcomes-th
// makes it a long writer.
func (s *Ledger) recorded(ctx context.Context) {
	if s.outcomes.Add(1) == longWriterOutcomes {
		s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA wal_autocheckpoint(%d)", walAutocheckpointLongWrite))
	}
}

// checkpointLongWrite checkpoints the WAL at the close of a long writer
// and truncates it: its frames would otherwise stay valid, and every
// process opening the ledger until the next write would read them all back
// (megabytes after a long scan). TRUNCATE waits (busy_timeout) for the
// writes and reads in progress, which are short; a failure loses nothing.
func (s *Ledger) checkpointLongWrite() {
	if s.outcomes.Load() >= longWriterOutcomes {
		if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err == nil {
			s.syncWALIndex()
		}
	}
}

// syncWALIndex makes the -shm's header durable after a TRUNCATE checkpoint.
// SQLite resets the header (no frames) in the -shm's mapping, then
// truncates the WAL, and syncs neither: a power cut before the kernel
// writes the page back left, beside an empty WAL, the header of frames the
// WAL no longer holds, which the next opener reads as a -wal lost at rest
// (lostAtRest) and marks, and scan then refuses to replay until the
// operator removes the mark. Synced here, that window is the instant
// between the truncation and this call, not the kernel's writeback delay.
// Best effort: a failure loses nothing.
func (s *Ledger) syncWALIndex() {
	if f, err := os.Open(s.real + "-shm"); err == nil {
		f.Sync()
		f.Close()
	}
}

// keepWALOnClose turns off the checkpoint on close for db's connection; db
// has one connection (SetMaxOpenConns(1)). It reports whether it could.
func keepWALOnClose(ctx context.Context, db *sql.DB) bool {
	c, err := db.Conn(ctx)
	if err != nil {
		return false
	}
	defer c.Close()
	ok := false
	c.Raw(func(dc any) error {
		ok = noCheckpointOnClose(dc)
		return nil
	})
	return ok
}

// noCheckpointOnClose sets SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE on a
// modernc.org/sqlite driver connection (a *conn with fields db uintptr and
// tls *libc.TLS).
func noCheckpointOnClose(dc any) bool {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	handle, tlsField := v.Elem().FieldByName("db"), v.Elem().FieldByName("tls")
	if !handle.IsValid() || handle.Kind() != reflect.Uintptr ||
		!tlsField.IsValid() || tlsField.Type() != reflect.TypeFor[*libc.TLS]() || tlsField.IsNil() {
		return false
	}
	tls := (*libc.TLS)(unsafe.Pointer(tlsField.Pointer()))
	// sqlite3_db_config(db, op, int onoff, int *pRes): two vararg slots of
	// 8 bytes each in libc.VaList.
	va := libc.Xmalloc(tls, 16)
	if va == 0 {
		return false
	}
	defer libc.Xfree(tls, va)
	rc := sqlite3.Xsqlite3_db_config(tls, uintptr(handle.Uint()), sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
		libc.VaList(va, int32(1), uintptr(0)))
	return rc == sqlite3.SQLITE_OK
}
