package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// walSyncs replaces syncWAL for one test: each sync waits for gate (nil:
// none) and fails with the errors in fail, in turn; done counts the syncs
// that ended.
type walSyncs struct {
	gate chan struct{}
	fail []error
	done atomic.Int32
}

func trackSyncs(t *testing.T, w *walSyncs) {
	real := syncWAL
	var n atomic.Int32
	syncWAL = func(f *os.File) error {
		i := int(n.Add(1)) - 1
		if w.gate != nil {
			<-w.gate
		}
		err := real(f)
		if i < len(w.fail) && w.fail[i] != nil {
			err = w.fail[i]
		}
		w.done.Add(1)
		return err
	}
	t.Cleanup(func() { syncWAL = real })
}

func openForSyncs(t *testing.T) *Ledger {
	t.Helper()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	// a first write, so that the WAL is there to sync
	if err := s.UpsertTask(t.Context(), store.Task{Name: "t", Schedule: "* * * * *", RegisteredAt: syncT0, UpdatedAt: syncT0}); err != nil {
		t.Fatal(err)
	}
	return s
}

var syncT0 = time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)

func slotClaim(slot time.Time) store.ClaimRequest {
	return store.ClaimRequest{Run: store.Run{Task: "t", Slot: slot, StartedAt: slot, Trigger: store.TriggerSchedule}}
}

// synchronous is the connection's setting as the next statement sees it.
func synchronous(t *testing.T, s *Ledger) int {
	t.Helper()
	var v int
	if err := s.db.QueryRow(`PRAGMA synchronous`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGrantedClaimSyncsBesideItsJob: a granted claim returns with its
// commit's sync still running (its job starts meanwhile); the outcome
// that follows waits for it, then syncs its own before Finish returns;
// the connection is at synchronous=FULL (2) after each.
func TestGrantedClaimSyncsBesideItsJob(t *testing.T) {
	w := &walSyncs{gate: make(chan struct{})}
	s := openForSyncs(t)
	trackSyncs(t, w)
	claimed := make(chan store.ClaimResult, 1)
	go func() {
		res, err := s.Claim(t.Context(), slotClaim(syncT0))
		if err != nil {
			t.Error(err)
		}
		claimed <- res
	}()
	var res store.ClaimResult
	select {
	case res = <-claimed:
	case <-time.After(30 * time.Second):
		close(w.gate)
		t.Fatal("the granted claim did not return within 30 s while its sync was held: it waits for the sync before the job starts")
	}
	if !res.Claimed {
		t.Fatalf("claim not granted: %+v", res)
	}
	if n := w.done.Load(); n != 0 {
		t.Fatalf("%d syncs ended while the gate was shut", n)
	}
	if v := synchronous(t, s); v != 2 {
		t.Errorf("after the claim the connection is at synchronous=%d, want 2 (FULL)", v)
	}
	close(w.gate)
	if err := s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: syncT0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if n := w.done.Load(); n != 2 {
		t.Errorf("when Finish returned %d syncs had ended, want 2 (the claim's, then the outcome's own)", n)
	}
	if v := synchronous(t, s); v != 2 {
		t.Errorf("after the outcome the connection is at synchronous=%d, want 2 (FULL)", v)
	}
}

// TestRefusedClaimSyncsBeforeItReturns: a claim refused (its slot held)
// may still commit (a held outcome, a boot): it is synced before Claim
// returns, since no job follows it.
func TestRefusedClaimSyncsBeforeItReturns(t *testing.T) {
	w := &walSyncs{}
	s := openForSyncs(t)
	first, err := s.Claim(t.Context(), slotClaim(syncT0))
	if err != nil || !first.Claimed {
		t.Fatalf("first claim: %+v, %v", first, err)
	}
	if err := s.awaitSync(); err != nil {
		t.Fatal(err)
	}
	trackSyncs(t, w)
	res, err := s.Claim(t.Context(), slotClaim(syncT0))
	if err != nil {
		t.Fatal(err)
	}
	if res.Claimed {
		t.Fatal("a second claim of a running slot was granted")
	}
	if n := w.done.Load(); n != 1 {
		t.Errorf("when the refused claim returned %d syncs had ended, want 1", n)
	}
}

// TestFailedSyncFailsTheNextWriteOnce: a claim whose sync failed makes the
// next write fail with that error (its outcome is then noted, not lost
// silently), once: the write after it succeeds.
func TestFailedSyncFailsTheNextWriteOnce(t *testing.T) {
	w := &walSyncs{fail: []error{syscall.EIO}}
	s := openForSyncs(t)
	trackSyncs(t, w)
	res, err := s.Claim(t.Context(), slotClaim(syncT0))
	if err != nil || !res.Claimed {
		t.Fatalf("claim: %+v, %v", res, err)
	}
	o := store.Outcome{Status: store.StatusSucceeded, EndedAt: syncT0.Add(time.Second)}
	err = s.Finish(t.Context(), res.Run.ID, o)
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "sync the ledger's WAL") {
		t.Fatalf("the outcome after a failed sync: %v, want the sync's EIO", err)
	}
	if err := s.Finish(t.Context(), res.Run.ID, o); err != nil {
		t.Fatalf("the write after it: %v", err)
	}
	r, err := s.Run(t.Context(), res.Run.ID)
	if err != nil || r.Status != store.StatusSucceeded {
		t.Fatalf("run %d: %+v, %v", res.Run.ID, r, err)
	}
}

// TestGrantedClaimTellsItsOwnSync: a granted claim's Synced waits for that
// claim's own sync and returns its error, also once another write took
// the error (a task replayed beside it: the outcome the claim carried is
// then noted, not taken for durable); a claim whose sync succeeded
// returns nil.
func TestGrantedClaimTellsItsOwnSync(t *testing.T) {
	w := &walSyncs{fail: []error{syscall.EIO}}
	s := openForSyncs(t)
	trackSyncs(t, w)
	res, err := s.Claim(t.Context(), slotClaim(syncT0))
	if err != nil || !res.Claimed || res.Synced == nil {
		t.Fatalf("claim: %+v, %v", res, err)
	}
	if err := s.awaitSync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("another write after the failed sync: %v, want its EIO", err)
	}
	if err := res.Synced(); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "sync the ledger's WAL") {
		t.Errorf("the claim's Synced: %v, want its sync's EIO", err)
	}
	next, err := s.Claim(t.Context(), slotClaim(syncT0.Add(time.Hour)))
	if err != nil || !next.Claimed || next.Synced == nil {
		t.Fatalf("next claim: %+v, %v", next, err)
	}
	if err := next.Synced(); err != nil {
		t.Errorf("a claim whose sync succeeded: Synced %v, want nil", err)
	}
}
