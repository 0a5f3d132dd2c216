package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// recordRuns opens the ledger at path, records n runs of task and closes it,
// as n cron fires would leave it (the WAL at rest).
func recordRuns(t *testing.T, path, task string, n int) {
	t.Helper()
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	code := 0
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		res, err := s.Claim(t.Context(), store.ClaimRequest{Run: store.Run{Task: task, StartedAt: at.Add(time.Duration(i) * time.Minute)}})
		if err != nil || !res.Claimed {
			t.Fatalf("claim %d: %+v, %v", i, res, err)
		}
		if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, ExitCode: &code,
			EndedAt: at.Add(time.Duration(i)*time.Minute + time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLostAtRest: a ledger's -wal deleted or cut short while nobody has
// the ledger open is reported at the next open, with the frames lost, and
// only then: not when the database file already holds every frame (a
// checkpoint came last), not for a -shm that is not SQLite's, not for a
// ledger left as catchup leaves it, and not twice.
func TestLostAtRest(t *testing.T) {
	cases := map[string]struct {
		after func(t *testing.T, path string)
		lost  bool
	}{
		"left as catchup leaves it": {after: func(*testing.T, string) {}},
		"-wal deleted":              {after: func(t *testing.T, path string) { remove(t, path+"-wal") }, lost: true},
		"-wal truncated":            {after: func(t *testing.T, path string) { truncate(t, path+"-wal", 0) }, lost: true},
		"-wal cut to its first frames": {after: func(t *testing.T, path string) {
			truncate(t, path+"-wal", walHeaderSize+2*(4096+walFrameOverhead))
		}, lost: true},
		"checkpointed, then -wal deleted": {after: func(t *testing.T, path string) {
			s := openRaw(t, path)
			if _, err := s.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
				t.Fatal(err)
			}
			s.db.Close()
			remove(t, path+"-wal")
		}},
		"-shm not SQLite's": {after: func(t *testing.T, path string) {
			if err := os.WriteFile(path+"-shm", []byte(strings.Repeat("x", 200)), 0o600); err != nil {
				t.Fatal(err)
			}
			remove(t, path+"-wal")
		}},
		"-shm header torn": {after: func(t *testing.T, path string) {
			b, err := os.ReadFile(path + "-shm")
			if err != nil {
				t.Fatal(err)
			}
			b[16]++ // mxFrame of the first copy only
			if err := os.WriteFile(path+"-shm", b, 0o600); err != nil {
				t.Fatal(err)
			}
			remove(t, path+"-wal")
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.db")
			recordRuns(t, path, "t", 3)
			c.after(t, path)
			s, err := Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			got := s.OpenWarning()
			s.Close()
			if c.lost != (got != "") {
				t.Fatalf("lost %v, warning %q", c.lost, got)
			}
			if c.lost && (!strings.Contains(got, path) || !strings.Contains(got, "WAL frames) are lost")) {
				t.Fatalf("warning %q names neither the ledger nor the loss", got)
			}
			s, err = Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if again := s.OpenWarning(); again != "" {
				t.Fatalf("said twice: %q", again)
			}
		})
	}
}

// TestLostAtRestNeverWhileInUse: a ledger at work (commits, and the
// TRUNCATE checkpoint a long writer makes at its close, which resets the
// -shm's header and then truncates the WAL) is never taken for one whose
// -wal was lost, however the look interleaves with the writes.
func TestLostAtRestNeverWhileInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	recordRuns(t, path, "t", 1)
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := openRaw(t, path)
		defer s.db.Close()
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := s.db.Exec(`UPDATE tasks SET updated_at = ?`, i); err != nil {
				t.Error(err)
				return
			}
			if i%7 == 0 {
				s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
			}
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	looks := 0
	for time.Now().Before(deadline) || looks < 200 {
		if got := lostAtRest(path, path); got != "" {
			stop()
			wg.Wait()
			t.Fatalf("look %d, with the ledger in use: %s", looks, got)
		}
		looks++
	}
	stop()
	wg.Wait()
}

// openRaw opens the ledger at path as Open does, for a test to write to
// its database handle directly.
func openRaw(t *testing.T, path string) *Ledger {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}
