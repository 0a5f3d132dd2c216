package catchup

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// testLedger opens a real SQLite ledger in a temp dir.
func testLedger(t *testing.T) (*store.SQLite, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catchup.db")
	st, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

// testMachine is a machine whose clock reads now.
func testMachine(db string, now time.Time) Machine {
	return Machine{
		Now: func() time.Time { return now }, Host: "testhost", BootID: "boot-1", PID: 4242,
		LockDir: db + ".locks", DB: db, Stdout: io.Discard, Stderr: io.Discard,
		HomeDir: func(string) (string, error) { return "/nonexistent", nil },
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustSchedule(t *testing.T, expr, tz string) *schedule.Schedule {
	t.Helper()
	s, err := parseSchedule(expr, tz)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
