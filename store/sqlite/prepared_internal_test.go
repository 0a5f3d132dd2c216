package sqlite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPreparedStatementsReused: a run's lifecycle statements are prepared
// once per ledger and reused by every later claim and outcome (a scan
// replaying many slots parses them once); results stay right; and the
// prepared statements do not keep Close from checkpointing and removing
// the WAL.
func TestPreparedStatementsReused(t *testing.T) {
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		req      func(i int) store.ClaimRequest
		prepared int
	}{
		"manual run, no slot": {
			req:      func(i int) store.ClaimRequest { return store.ClaimRequest{Run: store.Run{Task: "m", StartedAt: at}} },
			prepared: 3, // task insert, run insert, outcome
		},
		"replay of a slot": {
			req: func(i int) store.ClaimRequest {
				slot := at.Add(time.Duration(i) * time.Minute)
				return store.ClaimRequest{Run: store.Run{Task: "s", Slot: slot, StartedAt: slot}}
			},
			prepared: 5, // + the slot's runs, the pruned slots
		},
		"forced, registering": {
			req: func(i int) store.ClaimRequest {
				return store.ClaimRequest{Run: store.Run{Task: "f", Slot: at, StartedAt: at}, Force: true,
					Register: &store.Task{Name: "f", Schedule: "* * * * *", RegisteredAt: at, UpdatedAt: at}}
			},
			prepared: 4, // upsert, run insert, the slot's runs, outcome
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			code := 0
			for i := range 3 {
				res, err := s.Claim(t.Context(), c.req(i))
				if err != nil || !res.Claimed {
					t.Fatalf("claim %d: %+v, %v", i, res, err)
				}
				if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded,
					ExitCode: &code, EndedAt: at.Add(time.Second)}); err != nil {
					t.Fatal(err)
				}
				got, err := s.Run(t.Context(), res.Run.ID)
				if err != nil || got.Status != store.StatusSucceeded || got.Task != c.req(i).Run.Task {
					t.Fatalf("run %d read back as %+v, %v", res.Run.ID, got, err)
				}
				if n := len(s.prepared.m); n != c.prepared {
					t.Errorf("after claim %d: %d prepared statements, want %d", i, n, c.prepared)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the WAL is still there after Close (%v): the last close did not checkpoint", err)
			}
		})
	}
}
