// Package storetest holds what the tests of store and of its backends
// share: helpers that claim and read runs through the Store interface, and
// PostgreSQL ledgers of their own on the server CATCHUP_TEST_POSTGRES_DSN
// names (with one line on stderr when they are skipped for want of one).
package storetest

import (
	"bytes"
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// T0 is a whole-second UTC instant: slots are stored in seconds and other
// times in milliseconds, so test times stay exact through a round trip.
var T0 = time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)

// Claim claims a run and fails the test on error.
func Claim(t testing.TB, s store.Store, req store.ClaimRequest) store.ClaimResult {
	t.Helper()
	res, err := s.Claim(context.Background(), req)
	if err != nil {
		t.Fatalf("Claim(%s, %v): %v", req.Run.Task, req.Run.Slot, err)
	}
	return res
}

// MustClaim claims a run that must be granted and returns its id.
func MustClaim(t testing.TB, s store.Store, r store.Run) int64 {
	t.Helper()
	res := Claim(t, s, store.ClaimRequest{Run: r})
	if !res.Claimed {
		t.Fatalf("Claim(%s, %v) not granted; holder %+v", r.Task, r.Slot, res.Run)
	}
	return res.Run.ID
}

// Finish records the outcome status of run id, ended at at.
func Finish(t testing.TB, s store.Store, id int64, status string, at time.Time) {
	t.Helper()
	if err := s.Finish(context.Background(), id, store.Outcome{Status: status, EndedAt: at}); err != nil {
		t.Fatalf("Finish(%d): %v", id, err)
	}
}

// GetRun reads run id.
func GetRun(t testing.TB, s store.Store, id int64) store.Run {
	t.Helper()
	r, err := s.Run(context.Background(), id)
	if err != nil {
		t.Fatalf("Run(%d): %v", id, err)
	}
	return r
}

// SameRun compares two runs field by field, treating nil and empty tails as
// equal (SQLite does not keep the difference) but nothing else.
func SameRun(a, b store.Run) bool {
	if !bytes.Equal(a.StdoutTail, b.StdoutTail) || !bytes.Equal(a.StderrTail, b.StderrTail) {
		return false
	}
	a.StdoutTail, a.StderrTail, b.StdoutTail, b.StderrTail = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

// IDs lists the ids of runs, in order.
func IDs(runs []store.Run) []int64 {
	out := make([]int64, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}
