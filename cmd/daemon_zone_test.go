package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/internal/pgtest"
	"github.com/catchup/catchup/store/postgres"
)

// TestDaemonReplicaFiresInTheFleetZone: a daemon replica whose host is in
// another zone than the one its line's task is registered in on a shared
// ledger (the line names none) schedules its fires in the registered zone:
// its replica in Berlin and it fire the same slots, and the claim lets one
// run each.
func TestDaemonReplicaFiresInTheFleetZone(t *testing.T) {
	dsn, err := pgtest.Schema(t, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	file := filepath.Join(t.TempDir(), "crontab")
	must(t, os.WriteFile(file, []byte("# catchup: task=nightly\n0 2 * * * true\n"), 0o600))
	machine := func(zone string) catchup.Machine {
		now := time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC)
		return catchup.Machine{Now: func() time.Time { return now }, Zone: zone, DB: dsn, Host: zone,
			Stdout: io.Discard, Stderr: io.Discard, HomeDir: func(string) (string, error) { return "/", nil }}
	}
	for _, tc := range []struct{ zone, want string }{
		{"Europe/Berlin", "Europe/Berlin"},    // registers the task
		{"America/New_York", "Europe/Berlin"}, // a replica elsewhere
	} {
		tasks, err := daemonTasks(ctx, st, machine(tc.zone), []string{file}, func(string) time.Time { return time.Time{} }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 1 || tasks[0].Sched.Location().String() != tc.want || tasks[0].Def.TZ != tc.want {
			t.Fatalf("host in %s: tasks %+v; want its schedule in %s", tc.zone, tasks, tc.want)
		}
	}
}
