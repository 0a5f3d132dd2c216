package sqlite

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestStaleLedgerClosesWithoutCheckpoint: a long writer (a daemon) whose
// ledger's -shm was deleted, or whose file was replaced, does not
// checkpoint and truncate the WAL as it closes: through its stale index
// it would copy the wrong frames and cut off those another process
// committed through the new one (or the WAL the file now there reads).
func TestStaleLedgerClosesWithoutCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	if _, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: "t", StartedAt: at}}); err != nil {
		t.Fatal(err)
	}
	s.outcomes.Store(longWriterOutcomes) // a long writer: it checkpoints at close
	if err := os.Remove(path + "-shm"); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path + "-wal")
	if err != nil || before.Size() == 0 {
		t.Fatalf("no WAL to keep: %v", err)
	}
	s.Close()
	after, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if after.Size() != before.Size() {
		t.Errorf("-wal after closing a ledger whose -shm was deleted: %d bytes; want %d bytes, untouched", after.Size(), before.Size())
	}
}
