package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/catchup/catchup/store/ledger"
)

// The behaviour suite: every test that takes a backend runs over both.

func TestMain(m *testing.M) { storetest.Main(m, "store") }

// backend is one implementation of store.Store under test.
type backend struct {
	name string
	// ledger makes an empty ledger and returns its location.
	ledger func(t testing.TB) string
}

var backends = []backend{
	{name: "sqlite", ledger: func(t testing.TB) string { return filepath.Join(t.TempDir(), "ledger.db") }},
	{name: "postgres", ledger: storetest.PostgresLedger},
}

// forEachBackend runs f as a subtest for each backend, in parallel with
// the other tests that take a backend: each works on a ledger of its own,
// and most of their time is spent waiting on the disk or the server.
func forEachBackend(t *testing.T, f func(t *testing.T, be backend)) {
	t.Helper()
	t.Parallel()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			f(t, be)
		})
	}
}

// openAt opens the ledger at location as catchup does: ParseLocation,
// then ledger.Open.
func openAt(ctx context.Context, location string) (store.Store, error) {
	loc, err := store.ParseLocation(location)
	if err != nil {
		return nil, err
	}
	return ledger.Open(ctx, loc)
}

// open opens the ledger at location, and closes it when the test ends.
func (be backend) open(t testing.TB, location string) store.Store {
	t.Helper()
	s, err := openAt(context.Background(), location)
	if err != nil {
		t.Fatalf("open ledger: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// fresh opens a new, empty ledger.
func (be backend) fresh(t testing.TB) store.Store {
	t.Helper()
	return be.open(t, be.ledger(t))
}

// claimedHeartbeat is the heartbeat a ledger records for a claimed run: its
// start on a shared ledger, none on a local one.
func claimedHeartbeat(s store.Store, r store.Run) time.Time {
	if s.Shared() {
		return r.StartedAt
	}
	return time.Time{}
}
