package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/catchup/catchup/store"
)

// A claim's commit is synced beside its job's start, not before it.
//
// synchronous=FULL makes SQLite fdatasync the WAL inside each commit. The
// commits of a claim and of an outcome (Finish) are made at NORMAL instead,
// which writes the same frames and syncs nothing, and this file syncs them
// with the same fdatasync of the same WAL (L1):
//   - an outcome before Finish returns, as FULL would;
//   - a refused claim before Claim returns (it may record a held outcome);
//   - a granted claim in a goroutine started as its commit ends, while the
//     caller starts the job: the claim and the outcome it carries (a
//     replay's, of the slot before) are durable as soon as with FULL, whose
//     sync would start at the same moment; only the job no longer waits for
//     it. A power cut during that sync cuts a job that started at most that
//     long ago, whose slot is replayed either way (found running and dead,
//     or missed with its claim lost). The next write waits for the sync and
//     fails with its error, once (awaitSync).
// SQLite's first sync of a WAL in a process also fsyncs its directory (it
// opens the WAL to create it, and cannot tell it existed); so does this
// file's first sync, off the job's path.
//
// The connection is at FULL for every other statement: a relaxed
// transaction pins it (no other goroutine's statement runs between its
// PRAGMAs), and a connection that could not be set back to FULL fails
// every later claim and outcome (walSync.lost; the statement that failed
// to run would fail the others' too). A write that may give up waiting (the
// daemon's, store.GiveUpWaitsWhen) and a reader's ledger stay at FULL.

type walSync struct {
	mu      sync.Mutex
	wal     *os.File   // the WAL as open identified it (openWAL); nil: every commit at FULL
	last    *walSyncOp // the sync started last (it waits for the one before); nil if none
	err     error      // the error of a granted claim's sync that failed, until a write returns it
	lost    error      // the connection was left at NORMAL: every later claim and outcome fails
	dirDone bool       // the WAL's directory was synced by this process (a failed sync tries it again)
}

// walSyncOp is one sync: done is closed when it ended, with err its error.
// The error of a sync its commit waits for (an outcome's, a refused
// claim's) is that commit's, returned to its caller alone: another
// goroutine's write waiting for the same sync (scan --concurrency) must
// not take it, or the outcome would be reported recorded.
type walSyncOp struct {
	done chan struct{}
	err  error
}

// relaxedTx is a write transaction on the ledger's connection, pinned
// from its PRAGMA synchronous=NORMAL to the PRAGMA back to FULL, so that no
// other goroutine's statement runs at NORMAL in between; relaxed is false
// for one begun as any other (at FULL: a reader, a write that may give up
// waiting, a WAL not open), whose commit syncs as it always did.
type relaxedTx struct {
	s       *Ledger
	ctx     context.Context
	conn    *sql.Conn
	tx      *sql.Tx
	relaxed bool
	op      *walSyncOp // the background sync of an async commit
}

// synced is store.ClaimResult.Synced for the claim r committed: it waits
// for that commit's own sync and returns its error (nil when the commit
// was synced before it returned).
func (r *relaxedTx) synced() func() error {
	op := r.op
	if op == nil {
		return nil
	}
	return func() error {
		<-op.done
		return op.err
	}
}

// beginRelaxed begins a write transaction whose commit this package syncs
// (commit). It first returns the error of a sync that failed since the
// last write, once.
func (s *Ledger) beginRelaxed(ctx context.Context) (*relaxedTx, error) {
	if err := s.awaitSync(); err != nil {
		return nil, err
	}
	r := &relaxedTx{s: s, ctx: ctx}
	if s.ws.wal != nil && store.GiveUpOn(ctx) == nil {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := conn.ExecContext(ctx, `PRAGMA synchronous=NORMAL`); err != nil {
			conn.Close()
		} else if r.tx, err = conn.BeginTx(ctx, nil); err != nil {
			r.conn = conn
			r.end()
			return nil, err
		} else {
			r.conn, r.relaxed = conn, true
			return r, nil
		}
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	r.tx = tx
	return r, nil
}

// commit commits, then syncs what it committed: in the background when
// async (a claim whose job starts now: the next write waits for it), else
// before it returns.
func (r *relaxedTx) commit(async bool) error {
	err := r.tx.Commit()
	r.end()
	if err != nil || !r.relaxed {
		return err
	}
	op := r.s.startSync(async)
	if async {
		r.op = op
		return nil
	}
	<-op.done
	if op.err != nil {
		return op.err
	}
	return r.s.awaitSync()
}

// rollback rolls back a transaction not committed (a no-op after commit).
func (r *relaxedTx) rollback() {
	r.tx.Rollback()
	r.end()
}

// end sets the connection back to synchronous=FULL and unpins it. Should
// that fail, the connection may stay at NORMAL: every later write then
// fails (ws.err, kept).
func (r *relaxedTx) end() {
	if r.conn == nil {
		return
	}
	if _, err := r.conn.ExecContext(r.ctx, `PRAGMA synchronous=FULL`); err != nil {
		r.s.ws.mu.Lock()
		r.s.ws.lost = fmt.Errorf("the ledger's connection could not be set back to synchronous=FULL: %w", err)
		r.s.ws.mu.Unlock()
	}
	r.conn.Close()
	r.conn = nil
}

// openWAL opens the ledger's WAL for syncing, once open has identified
// it (s.wal): the file a write checks is still the ledger's (unmoved) is
// then the file synced. Without it (a reader; a WAL that is not there, or
// changed between the two looks) every commit syncs at FULL.
func (s *Ledger) openWAL() {
	if s.reader || s.wal == (fileID{}) {
		return
	}
	f, err := os.OpenFile(s.real+"-wal", os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || (fileID{dev: uint64(st.Dev), ino: st.Ino}) != s.wal {
		f.Close()
		return
	}
	s.ws.wal = f
}

// startSync syncs the WAL (and, the first time, its directory) in a
// goroutine; awaitSync waits for it. The error of a sync started for a
// granted claim (async) is kept for the next write; any other is the
// returned op's, for its commit to return.
func (s *Ledger) startSync(async bool) *walSyncOp {
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	op := &walSyncOp{done: make(chan struct{})}
	prev, wal, dir := s.ws.last, s.ws.wal, !s.ws.dirDone
	s.ws.last, s.ws.dirDone = op, true
	go func() {
		defer close(op.done)
		if prev != nil {
			<-prev.done
		}
		err := syncWAL(wal)
		if err == nil && dir {
			err = syncDir(filepath.Dir(s.real))
		}
		if err == nil {
			return
		}
		if dir {
			s.ws.mu.Lock()
			s.ws.dirDone = false // the next sync does the directory again
			s.ws.mu.Unlock()
		}
		op.err = fmt.Errorf("sync the ledger's WAL: %w", err)
		if async {
			s.ws.mu.Lock()
			s.ws.err = op.err
			s.ws.mu.Unlock()
		}
	}()
	return op
}

// awaitSync waits for the sync in flight, if any, and returns the error of
// a granted claim's that failed: the commits it covered may not survive a
// power cut.
func (s *Ledger) awaitSync() error {
	s.ws.mu.Lock()
	last := s.ws.last
	s.ws.mu.Unlock()
	if last != nil {
		<-last.done
	}
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	err := s.ws.err
	s.ws.err = nil
	if s.ws.lost != nil {
		return s.ws.lost
	}
	return err
}

// closeSync waits for the sync in flight and closes the WAL's descriptor.
func (s *Ledger) closeSync() error {
	err := s.awaitSync()
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	if s.ws.wal != nil {
		s.ws.wal.Close()
		s.ws.wal = nil
	}
	return err
}

// syncWAL syncs the WAL's data and size (a test may wrap it).
var syncWAL = fdatasync

func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
