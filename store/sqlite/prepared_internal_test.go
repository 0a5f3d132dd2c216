package sqlite

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPreparedStatementsReused: a run's lifecycle statements are prepared
// the second time they are used and reused by every later claim and
// outcome (a scan replaying many slots parses them twice; a run that
// claims once prepares nothing); results stay right; and Close succeeds
// with them prepared.
func TestPreparedStatementsReused(t *testing.T) {
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		req      func(i int) store.ClaimRequest
		prepared int
		boots    []store.Boot // the boot spans of host h afterwards
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
			prepared: 6, // + whether the slot was touched, its runs, the pruned slots
		},
		"replay seeing the boot": {
			req: func(i int) store.ClaimRequest {
				slot := at.Add(time.Duration(i) * time.Minute)
				return store.ClaimRequest{Run: store.Run{Task: "b", Slot: slot, StartedAt: slot},
					Boot: &store.Boot{Host: "h", ID: "boot-1", Time: at.Add(-time.Hour), FirstSeen: slot, LastSeen: slot}}
			},
			prepared: 8, // + the boot's latest span and its extension
			boots: []store.Boot{{Host: "h", ID: "boot-1", Time: at.Add(-time.Hour), FirstSeen: at,
				LastSeen: at.Add(2 * time.Minute)}},
		},
		"forced, registering": {
			req: func(i int) store.ClaimRequest {
				return store.ClaimRequest{Run: store.Run{Task: "f", Slot: at, StartedAt: at}, Force: true,
					Register: &store.Task{Name: "f", Schedule: "* * * * *", RegisteredAt: at, UpdatedAt: at}}
			},
			prepared: 5, // upsert, run insert, whether the slot was touched, its runs, outcome
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
				want := c.prepared
				if i == 0 {
					want = 0 // each used once so far
				}
				if n := len(s.prepared.m); n != want {
					t.Errorf("after claim %d: %d prepared statements, want %d", i, n, want)
				}
			}
			boots, err := s.Boots(t.Context(), "h")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(boots, c.boots) {
				t.Errorf("boot spans %+v, want %+v", boots, c.boots)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

// TestPreparedStatementsConcurrent: goroutines sharing one ledger (a run
// and its progress reports do) claim and record at once without
// deadlocking on the one connection: a statement being prepared waits for
// the connection, which a claim's transaction holds while it looks up its
// own statements.
func TestPreparedStatementsConcurrent(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	const workers, each = 4, 25
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range each {
				slot := at.Add(time.Duration(w*each+i) * time.Minute)
				res, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: "t", Slot: slot, StartedAt: slot}})
				if err == nil {
					_, _, err = s.LastCheckpoint(t.Context(), "t", slot)
				}
				if err == nil {
					err = s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot})
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	deadline := time.After(60 * time.Second)
	for range workers {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-deadline:
			t.Fatal("claims and outcomes from 4 goroutines did not finish in 60 s: deadlocked on the connection")
		}
	}
}
