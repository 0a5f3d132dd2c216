//go:build unix

package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// A ledger file cut to 0 bytes is a lost ledger: every open refuses it,
// naming the file and the way out, and writes nothing over it or its WAL.
// It is never "no ledger" (a reader would say so and a writer would start
// a fresh ledger over the lost one).
func TestOpenEmptyLedgerFileRefused(t *testing.T) {
	opens := map[string]func(context.Context, string) (*sqlite.Ledger, error){
		"Open":         sqlite.Open,
		"OpenExisting": sqlite.OpenExisting,
	}
	for name, open := range opens {
		for _, withWAL := range []bool{false, true} {
			label := name + "/without WAL"
			if withWAL {
				label = name + "/with WAL"
			}
			t.Run(label, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "ledger.db")
				s, err := sqlite.Open(t.Context(), path)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
					t.Fatal(err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				var wal []byte
				if withWAL {
					var err error
					if wal, err = os.ReadFile(path + "-wal"); err != nil || len(wal) == 0 {
						t.Fatalf("no WAL beside the ledger (%d bytes, %v)", len(wal), err)
					}
				} else {
					os.Remove(path + "-wal")
					os.Remove(path + "-shm")
				}
				if err := os.Truncate(path, 0); err != nil {
					t.Fatal(err)
				}

				s2, err := open(t.Context(), path)
				if err == nil {
					s2.Close()
					t.Fatalf("%s of a 0-byte ledger file succeeded", name)
				}
				if !errors.Is(err, sqlite.ErrNotALedger) || errors.Is(err, store.ErrNoLedger) {
					t.Errorf("error %q: want ErrNotALedger, not ErrNoLedger", err)
				}
				for _, want := range []string{path, "empty", "backup", "remove it"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
				if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
					t.Errorf("the refused file was written to (%v)", err)
				}
				if withWAL {
					if after, _ := os.ReadFile(path + "-wal"); !bytes.Equal(after, wal) {
						t.Errorf("the WAL beside the refused file changed (%d bytes, was %d)", len(after), len(wal))
					}
				}
			})
		}
	}
}

// A new ledger appears whole: the file at the ledger's path is never empty,
// even for an instant, so a process killed while creating it leaves no
// 0-byte file to block every later open. Racing first opens all succeed on
// one ledger, and leave nothing but it (and its -wal, -shm) behind.
func TestNewLedgerNeverEmpty(t *testing.T) {
	const procs = 4
	for round := range racingRounds() {
		dir := t.TempDir()
		path := filepath.Join(dir, "ledger.db")
		var sawEmpty atomic.Bool
		done := make(chan struct{})
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			for {
				if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
					sawEmpty.Store(true)
				}
				select {
				case <-done:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
		var wg sync.WaitGroup
		errs := make([]error, procs)
		for i := range procs {
			wg.Go(func() {
				s, err := sqlite.Open(context.Background(), path)
				if err == nil {
					err = s.UpsertTask(context.Background(), store.Task{Name: "t" + string(rune('a'+i)), RegisteredAt: t0, UpdatedAt: t0})
					if cerr := s.Close(); err == nil {
						err = cerr
					}
				}
				errs[i] = err
			})
		}
		wg.Wait()
		close(done)
		<-watched
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, opener %d: %v", round, i, err)
			}
		}
		if sawEmpty.Load() {
			t.Fatalf("round %d: %s was seen empty while it was being created", round, path)
		}
		s := openLedger(t, path)
		tasks, err := s.Tasks(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != procs {
			t.Fatalf("round %d: %d tasks in the ledger, want %d (the openers did not share one ledger)", round, len(tasks), procs)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if n := e.Name(); n != "ledger.db" && n != "ledger.db-wal" && n != "ledger.db-shm" {
				t.Errorf("round %d: %s left beside the ledger", round, n)
			}
		}
	}
}
