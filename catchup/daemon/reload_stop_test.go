package daemon

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestStopDuringABlockedReload: a stop signal while a reload waits for the
// ledger (a locked SQLite file, a slow PostgreSQL: up to its busy timeout)
// is acted on at once; the reload's result, when it comes, is ignored.
func TestStopDuringABlockedReload(t *testing.T) {
	t.Parallel()
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	load := func(context.Context, func(string) time.Time) ([]Task, error) {
		close(entered)
		<-release
		return nil, nil
	}
	stop, done := runReloading(load)
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("SIGHUP did not start a reload within 30s")
	}
	stop <- syscall.SIGTERM
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of SIGTERM while its reload waited for the ledger")
	}
}

// TestStopGivesUpABlockedReload: the ledger writes of a reload waiting for
// the ledger when a stop comes are told to give up (store.GiveUpOn), so
// that the ledger lets go of the reload and the daemon's process can
// exit: the next start registers its tasks again.
func TestStopGivesUpABlockedReload(t *testing.T) {
	t.Parallel()
	entered, gaveUp := make(chan struct{}), make(chan struct{})
	load := func(ctx context.Context, _ func(string) time.Time) ([]Task, error) {
		close(entered)
		giveUp := store.GiveUpOn(ctx)
		if giveUp == nil {
			return nil, errors.New("a reload's writes are not marked to give up")
		}
		select {
		case <-giveUp.Done():
			close(gaveUp)
			return nil, store.ErrGaveUp
		case <-time.After(30 * time.Second):
			return nil, errors.New("a reload's writes were not told to give up")
		}
	}
	stop, done := runReloading(load)
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("SIGHUP did not start a reload within 30s")
	}
	stop <- syscall.SIGTERM
	select {
	case <-gaveUp:
	case <-time.After(10 * time.Second):
		t.Fatal("the reload waiting for the ledger was not told to give up within 10s of SIGTERM")
	}
	<-done
}
