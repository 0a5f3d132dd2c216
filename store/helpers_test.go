package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	_ "modernc.org/sqlite"
)

// t0 is a whole-second UTC instant: slots are stored in seconds and other
// times in milliseconds, so test times stay exact through a round trip.
var t0 = time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)

// newLedger opens a fresh ledger file in a temporary directory.
func newLedger(t testing.TB) (*store.SQLite, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	return openLedger(t, path), path
}

// openLedger opens the ledger at path and closes it when the test ends.
func openLedger(t testing.TB, path string) *store.SQLite {
	t.Helper()
	s, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatalf("OpenSQLite(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// rawDB opens a second, plain connection pool on the ledger file.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatalf("open raw %s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func intp(v int) *int { return &v }

// claim claims a run and fails the test on error.
func claim(t testing.TB, s store.Store, req store.ClaimRequest) store.ClaimResult {
	t.Helper()
	res, err := s.Claim(context.Background(), req)
	if err != nil {
		t.Fatalf("Claim(%s, %v): %v", req.Run.Task, req.Run.Slot, err)
	}
	return res
}

// mustClaim claims a run that must be granted and returns its id.
func mustClaim(t testing.TB, s store.Store, r store.Run) int64 {
	t.Helper()
	res := claim(t, s, store.ClaimRequest{Run: r})
	if !res.Claimed {
		t.Fatalf("Claim(%s, %v) not granted; holder %+v", r.Task, r.Slot, res.Run)
	}
	return res.Run.ID
}

func finish(t testing.TB, s store.Store, id int64, status string, at time.Time) {
	t.Helper()
	if err := s.Finish(context.Background(), id, store.Outcome{Status: status, EndedAt: at}); err != nil {
		t.Fatalf("Finish(%d): %v", id, err)
	}
}

func getRun(t testing.TB, s store.Store, id int64) store.Run {
	t.Helper()
	r, err := s.Run(context.Background(), id)
	if err != nil {
		t.Fatalf("Run(%d): %v", id, err)
	}
	return r
}

// sameRun compares two runs field by field, treating nil and empty tails as
// equal (SQLite does not keep the difference) but nothing else.
func sameRun(a, b store.Run) bool {
	if !bytes.Equal(a.StdoutTail, b.StdoutTail) || !bytes.Equal(a.StderrTail, b.StderrTail) {
		return false
	}
	a.StdoutTail, a.StderrTail, b.StdoutTail, b.StderrTail = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

func ids(runs []store.Run) []int64 {
	out := make([]int64, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}
