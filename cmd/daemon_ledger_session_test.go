package cmd

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
)

// TestDaemonReopenedLedgerRefusesAnEarlierSessionsRun: the daemon's SQLite
// ledger is replaced while a job runs (a backup restored, made before its
// claim, or a copy made while it ran), and another of the daemon's calls,
// refused, reopens the ledger now at the path before the job ends. The
// job's outcome must then be refused as a write to a replaced file (the
// fire notes it for the next scan, which records it in the file now there),
// not written into that file by the claim's id: there the id names
// another run (a fire claimed since the reopen) or none, so that the
// outcome was lost, the slot replayed as missed, and another run's record
// overwritten (CI: the slot in flight ran twice). A call outside any session
// reaches the file now at the path.
func TestDaemonReopenedLedgerRefusesAnEarlierSessionsRun(t *testing.T) {
	for _, tc := range []struct {
		name   string
		backup bool // the file put in place is a backup made before the claim
	}{
		{name: "backup_before_the_claim", backup: true},
		{name: "copied_during_the_run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ledger.db")
			ctx := context.Background()
			loc, err := store.ParseLocation(path)
			if err != nil {
				t.Fatal(err)
			}
			first, err := ledger.Open(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			rl := reopenable(first, path, slog.New(slog.NewTextHandler(&log, nil)))
			t.Cleanup(func() { rl.Close() })
			at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			claim := func(ctx context.Context, slot time.Time) int64 {
				t.Helper()
				res, err := rl.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: slot,
					Trigger: store.TriggerSchedule, Status: store.StatusRunning, Attempt: 1, StartedAt: slot, Host: "h"}})
				if err != nil || !res.Claimed {
					t.Fatalf("claim of %s: %+v, %v", slot.Format(time.Kitchen), res, err)
				}
				return res.Run.ID
			}
			claim(ctx, at) // the run before, recorded in every file
			if err := rl.Finish(ctx, 1, store.Outcome{Status: store.StatusSucceeded, EndedAt: at.Add(time.Second)}); err != nil {
				t.Fatal(err)
			}
			backup := filepath.Join(dir, "backup.db")
			saveCopy := func() {
				if err := first.(interface {
					Backup(context.Context, string) error
				}).Backup(ctx, backup); err != nil {
					t.Fatal(err)
				}
			}
			if tc.backup {
				saveCopy()
			}
			fire := store.WithSession(ctx) // the job in flight
			slot := at.Add(time.Minute)
			id := claim(fire, slot)
			if !tc.backup {
				saveCopy()
			}
			// The restore: the ledger's files moved away, the copy put in place.
			for _, ext := range []string{"", "-wal", "-shm"} {
				os.Rename(path+ext, path+".away"+ext)
			}
			copyTo(t, backup, path)
			// Another call of the daemon's is refused, and the next reopens.
			if err := rl.UpsertTask(ctx, store.Task{Name: "t"}); !errors.Is(err, store.ErrLedgerMoved) {
				t.Fatalf("a write to the replaced file: %v, want ErrLedgerMoved", err)
			}
			next := claim(ctx, slot.Add(time.Minute)) // a fire claimed since: maybe the job's id
			if !bytes.Contains(log.Bytes(), []byte("event=reopen\n")) {
				t.Fatalf("not reopened; log:\n%s", log.String())
			}
			err = rl.Finish(fire, id, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot.Add(time.Second)})
			if !errors.Is(err, store.ErrLedgerMoved) {
				t.Errorf("the outcome of run %d, claimed in the file replaced, recorded by its id in the file now there: %v; "+
					"want it refused (ErrLedgerMoved)", id, err)
			}
			r, err := rl.Run(ctx, next)
			if err != nil || r.Status != store.StatusRunning || !r.Slot.Equal(slot.Add(time.Minute)) {
				t.Errorf("the run claimed since the reopen: %+v, %v; want it running, untouched", r, err)
			}
			if _, err := rl.Run(fire, id); !errors.Is(err, store.ErrLedgerMoved) {
				t.Errorf("a read of the earlier session's run id in the file now there: %v, want ErrLedgerMoved", err)
			}
		})
	}
}

// copyTo copies file src to dst.
func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(dst, b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}
