package daemon

import (
	"syscall"
	"testing"
	"time"
)

// TestStopDuringABlockedReload: a stop signal while a reload waits for the
// ledger (a locked SQLite file, a slow PostgreSQL: up to its busy timeout)
// is acted on at once; the reload's result, when it comes, is ignored.
func TestStopDuringABlockedReload(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	load := func() ([]Task, error) {
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
