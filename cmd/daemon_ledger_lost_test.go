package cmd

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
)

// TestDaemonLedgerTellsTheLostWindow: the daemon's ledger (reopening)
// forwarded LostRecords but not LostWindow, so its readers (catchup.List,
// through the daemon) gave the slots of a -wal lost at rest their old
// cause, not wal-lost, while the mark stood.
func TestDaemonLedgerTellsTheLostWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	loc, err := store.ParseLocation(path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ledger.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	rl := reopenable(first, path, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { rl.Close() })
	if _, ok := store.LostWindow(rl); ok {
		t.Fatal("a window without a mark")
	}
	if err := os.WriteFile(path+"-wal-lost", []byte("2026-01-01T01:30:00Z 2026-01-01T03:00:03Z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	span, ok := store.LostWindow(rl)
	want := time.Date(2026, 1, 1, 3, 0, 3, 0, time.UTC)
	if !ok || !span.Until.Equal(want) || span.Mark != path+"-wal-lost" {
		t.Errorf("window %+v, %v; want until %s, the mark %s-wal-lost", span, ok, want, path)
	}
}
