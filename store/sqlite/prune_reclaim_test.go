package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPruneReclaimsLeftFreePages: a prune whose VACUUM failed (a full disk)
// leaves free pages in the file; a later prune with nothing to delete
// still gives them back, so the file shrinks as ledger.md says.
func TestPruneReclaimsLeftFreePages(t *testing.T) {
	s, path, at := ledgerOf40LoudRuns(t)
	// What a prune leaves when its VACUUM fails: the rows gone, their pages free.
	if _, err := s.db.ExecContext(t.Context(), `DELETE FROM runs WHERE id <= 30`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(t.Context(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	res, err := s.Prune(t.Context(), store.PruneRequest{Before: at})
	if err != nil || res.Runs != 0 {
		t.Fatalf("Prune = %+v, %v; want nothing to delete", res, err)
	}
	after, _ := os.Stat(path)
	if after.Size() >= before.Size() {
		t.Errorf("the file is %d bytes after the prune, %d before: its free pages were not given back", after.Size(), before.Size())
	}
}

// TestPruneLeavesFewFreePages: a prune that frees less than a quarter of
// the file does not VACUUM it (the rewrite holds the write lock for as long
// as it copies every page kept): the runs recorded next reuse the pages.
func TestPruneLeavesFewFreePages(t *testing.T) {
	s, _, at := ledgerOf40LoudRuns(t)
	pages := func() (free, all int64) {
		t.Helper()
		if err := s.db.QueryRowContext(t.Context(), `SELECT f.freelist_count, p.page_count FROM pragma_freelist_count f, pragma_page_count p`).
			Scan(&free, &all); err != nil {
			t.Fatal(err)
		}
		return free, all
	}
	_, before := pages()
	res, err := s.Prune(t.Context(), store.PruneRequest{Before: at.Add(5 * time.Hour)})
	if err != nil || res.Runs != 5 {
		t.Fatalf("Prune = %+v, %v; want 5 runs", res, err)
	}
	if free, all := pages(); free == 0 || all != before {
		t.Errorf("after pruning 5 of 40 runs: %d free pages of %d, %d before; want the file kept, its free pages left for reuse", free, all, before)
	}
}

// ledgerOf40LoudRuns is a ledger of 40 hourly runs of task t from at, each
// with a 60 kB output tail (pages to free), and its path.
func ledgerOf40LoudRuns(t *testing.T) (*Ledger, string, time.Time) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	at := time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	tail := []byte(strings.Repeat("x", 60000))
	code := 0
	for i := range 40 {
		res, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: "t", StartedAt: at.Add(time.Duration(i) * time.Hour)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code,
			EndedAt: at.Add(time.Duration(i)*time.Hour + time.Second), StdoutTail: tail}); err != nil {
			t.Fatal(err)
		}
	}
	return s, path, at
}
