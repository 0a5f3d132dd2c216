package sqlite

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRelaxedCommitsFromManyGoroutines: parallel replays share one Ledger
// (scan --concurrency): claims, progress, outcomes and task upserts from
// several goroutines at once neither deadlock on the one connection (a
// relaxed transaction pins it; prepare waits for it outside) nor leave it
// at synchronous=NORMAL, and every claim and outcome had its sync.
func TestRelaxedCommitsFromManyGoroutines(t *testing.T) {
	w := &walSyncs{}
	s := openForSyncs(t)
	trackSyncs(t, w)
	const workers, slots = 4, 12
	var relaxed atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, workers*slots*4)
	for g := range workers {
		task := fmt.Sprintf("t%d", g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := t.Context()
			for i := range slots {
				slot := syncT0.Add(time.Duration(i) * time.Minute)
				if err := s.UpsertTask(ctx, store.Task{Name: task, Schedule: "* * * * *", RegisteredAt: syncT0, UpdatedAt: slot}); err != nil {
					errs <- err
					return
				}
				req := slotClaim(slot)
				req.Run.Task = task
				res, err := s.Claim(ctx, req)
				if err != nil || !res.Claimed {
					errs <- fmt.Errorf("claim %s %s: %+v, %v", task, slot, res, err)
					return
				}
				relaxed.Add(1)
				if err := s.SetProgress(ctx, res.Run.ID, 50, "half"); err != nil {
					errs <- err
					return
				}
				if err := s.Finish(ctx, res.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot.Add(time.Second)}); err != nil {
					errs <- err
					return
				}
				relaxed.Add(1)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(120 * time.Second):
		t.Fatal("the goroutines' writes did not end within 120 s: a deadlock on the ledger's connection")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := s.awaitSync(); err != nil {
		t.Fatal(err)
	}
	if got, want := w.done.Load(), relaxed.Load(); got != want {
		t.Errorf("%d syncs for %d claims and outcomes, want one each", got, want)
	}
	if v := synchronous(t, s); v != 2 {
		t.Errorf("after the writes the connection is at synchronous=%d, want 2 (FULL)", v)
	}
}

// TestOutcomeReportsItsOwnFailedSync: an outcome whose sync failed is not
// reported recorded, even when another goroutine's write (a parallel
// replay's claim) was waiting for that same sync: the error is the
// outcome's, not the next write's.
func TestOutcomeReportsItsOwnFailedSync(t *testing.T) {
	s := openForSyncs(t)
	for i := range 50 {
		outcomeOwnsFailedSync(t, s, i)
		if t.Failed() {
			return
		}
	}
}

func outcomeOwnsFailedSync(t *testing.T, s *Ledger, i int) {
	slot := syncT0.Add(time.Duration(i) * time.Hour)
	res, err := s.Claim(t.Context(), slotClaim(slot))
	if err != nil || !res.Claimed {
		t.Fatalf("claim: %+v, %v", res, err)
	}
	if err := s.awaitSync(); err != nil {
		t.Fatal(err)
	}
	// The outcome's sync is held, then fails; meanwhile other writes
	// begin, and wait for it.
	entered, gate := make(chan struct{}), make(chan struct{})
	real := syncWAL
	var once atomic.Bool
	syncWAL = func(f *os.File) error {
		if once.CompareAndSwap(false, true) {
			close(entered)
			<-gate
			return syscall.EIO
		}
		return real(f)
	}
	defer func() { syncWAL = real }()
	finished := make(chan error, 1)
	go func() {
		finished <- s.Finish(t.Context(), res.Run.ID, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot.Add(time.Second)})
	}()
	waitFor(t, entered, "the outcome's sync")
	const others = 4
	othersDone := make(chan error, others)
	for g := range others {
		go func() {
			req := slotClaim(slot)
			req.Run.Task = fmt.Sprintf("o%d", g)
			_, err := s.Claim(t.Context(), req)
			othersDone <- err
		}()
	}
	waitWaiters(t, others)
	close(gate)
	var ferr error
	select {
	case ferr = <-finished:
	case <-time.After(60 * time.Second):
		t.Fatal("Finish did not return within 60 s of its sync's end")
	}
	for range others {
		<-othersDone
	}
	if !errors.Is(ferr, syscall.EIO) {
		t.Errorf("round %d: the outcome whose sync failed returned %v, want its sync's EIO: it was reported recorded", i, ferr)
	}
	s.awaitSync() // a round's leftovers
}

func waitFor(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start within 60 s", what)
	}
}

// waitWaiters waits until n goroutines are blocked in awaitSync.
func waitWaiters(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		k := runtime.Stack(buf, true)
		if strings.Count(string(buf[:k]), "sqlite.(*Ledger).awaitSync(") >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d goroutines waited for the sync within 60 s", n)
		}
		runtime.Gosched()
	}
}
