//go:build linux

package sqlite_test

import (
	"path/filepath"
	"testing"

	driver "modernc.org/sqlite"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// A ledger's commits sync the WAL with fdatasync on Linux (L1: as durable
// as fsync, without the journal commit of the timestamps), and what they
// commit is there for the next process.
func TestCommitsSyncWithFdatasync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !driver.FdatasyncEnabled() {
		t.Fatal("commits sync with fsync: the ledger's open did not switch them to fdatasync")
	}
	if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatalf("UpsertTask: %v", err)
	}
	s.Close()
	again, err := sqlite.OpenExisting(t.Context(), path)
	if err != nil {
		t.Fatalf("OpenExisting: %v", err)
	}
	defer again.Close()
	if _, err := again.Task(t.Context(), "backup"); err != nil {
		t.Fatalf("the committed task is not in the ledger reopened: %v", err)
	}
}
