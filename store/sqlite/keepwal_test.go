package sqlite

import (
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
