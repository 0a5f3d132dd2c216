package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestWALKeptAtRest: a closed ledger keeps its WAL (the close does not
// checkpoint: see keepwal.go), the next open reads every committed run
// back from it, and the WAL stays bounded by the autocheckpoint however
// many runs are recorded.
func TestWALKeptAtRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	code := 0
	const runs = 60
	for i := range runs { // one process per run, as cron starts them
		s, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: "t", StartedAt: at.Add(time.Duration(i) * time.Minute)}})
		if err != nil || !res.Claimed {
			t.Fatalf("claim %d: %+v, %v", i, res, err)
		}
		if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code,
			EndedAt: at.Add(time.Duration(i)*time.Minute + time.Second)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatalf("after run %d the WAL is gone (%v): the close checkpointed (has modernc's connection changed shape? see noCheckpointOnClose)", i, err)
		}
		// Checkpoints happen at walAutocheckpoint pages; the file keeps the
		// size of the largest stretch between two of them.
		if max := int64(2*walAutocheckpoint) * 4096; fi.Size() > max {
			t.Fatalf("after run %d the WAL is %d bytes, more than %d: the autocheckpoint does not bound it", i, fi.Size(), max)
		}
	}
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.History(t.Context(), store.HistoryFilter{Task: "t", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	succeeded := 0
	for _, r := range got {
		if r.Status == store.StatusSucceeded {
			succeeded++
		}
	}
	if succeeded != runs {
		t.Fatalf("read back %d succeeded runs of %d", succeeded, runs)
	}
}

// TestLongWriterCheckpoints: a process that records many outcomes (a scan's
// replays) checkpoints at 1000 pages, not 64, and leaves an empty WAL when
// it closes, so that the next process reads nothing back; a short one (a
// run) keeps the small bound and leaves its frames.
func TestLongWriterCheckpoints(t *testing.T) {
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	code := 0
	for name, c := range map[string]struct {
		outcomes, wantBound int
		emptyWAL            bool
	}{
		"a run":              {outcomes: 1, wantBound: walAutocheckpoint},
		"just short of long": {outcomes: longWriterOutcomes - 1, wantBound: walAutocheckpoint},
		"a scan's replays":   {outcomes: 40, wantBound: walAutocheckpointLongWrite, emptyWAL: true},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.outcomes {
				slot := at.Add(time.Duration(i) * time.Minute)
				res, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: "t", Slot: slot, StartedAt: slot}})
				if err != nil || !res.Claimed {
					t.Fatalf("claim %d: %+v, %v", i, res, err)
				}
				if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code, EndedAt: slot}); err != nil {
					t.Fatal(err)
				}
			}
			var bound int
			if err := s.db.QueryRowContext(t.Context(), `PRAGMA wal_autocheckpoint`).Scan(&bound); err != nil {
				t.Fatal(err)
			}
			if bound != c.wantBound {
				t.Errorf("wal_autocheckpoint after %d outcomes = %d, want %d", c.outcomes, bound, c.wantBound)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path + "-wal")
			if err != nil {
				t.Fatalf("no WAL after Close: %v", err)
			}
			if empty := fi.Size() == 0; empty != c.emptyWAL {
				t.Errorf("WAL of %d bytes after Close; want empty = %v", fi.Size(), c.emptyWAL)
			}
		})
	}
}

// TestLostWALRefused: a SQLite file without the ledger's tables (an older
// catchup kept a new ledger's tables in its WAL until the first checkpoint:
// that file without its WAL, lost, truncated, or copied without it) is a
// SQLite header and no tables. Every command refuses it as not a ledger: a
// reader must not say there is no ledger (the first run would not create
// one), a writer must not rebuild an empty one over the lost one. The same
// older ledger with its WAL opens: SQLite reads the tables from the WAL.
// A new ledger's tables are in its file from the start (createLedger):
// losing its WAL loses no table.
func TestLostWALRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.db")
	olderLedger(t, path)
	lost := filepath.Join(dir, "lost.db")
	copyFile(t, path, lost) // the file without its WAL
	for name, open := range map[string]func(context.Context, string) (*Ledger, error){"Open": Open, "OpenExisting": OpenExisting} {
		if s, err := open(t.Context(), lost); !errors.Is(err, ErrNotALedger) || errors.Is(err, store.ErrNoLedger) {
			if err == nil {
				s.Close()
			}
			t.Fatalf("%s of a ledger whose WAL was lost: %v; want ErrNotALedger", name, err)
		}
		s, err := open(t.Context(), path)
		if err != nil {
			t.Fatalf("%s of an older ledger whose tables are in its WAL: %v", name, err)
		}
		if _, err := s.Task(t.Context(), "backup"); err != nil {
			t.Errorf("%s: the task in the WAL: %v", name, err)
		}
		s.Close()
	}

	// A new ledger's WAL lost: its tables are still there.
	path = filepath.Join(t.TempDir(), "new.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.Truncate(path+"-wal", 0); err != nil {
		t.Fatal(err)
	}
	s, err = OpenExisting(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenExisting of a new ledger whose WAL was lost: %v", err)
	}
	s.Close()
}

// olderLedger makes a ledger as an older catchup did: created in place,
// its tables (and a task) only in its WAL, the file itself a bare header.
func olderLedger(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA user_version = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if !keepWALOnClose(t.Context(), db) {
		t.Fatal("cannot keep the WAL at close")
	}
	s := &Ledger{db: db, path: path, real: path, creating: true}
	if err := s.checkSchema(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the older ledger's tables are not in its WAL (%v)", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
