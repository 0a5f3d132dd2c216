package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// committedStore notes when each outcome (Finish) returned, by run id, in
// real time, and how long each call took (once in its turn).
type committedStore struct {
	store.Store
	mu   sync.Mutex
	at   map[int64]time.Time
	took []time.Duration
}

func (c *committedStore) Finish(ctx context.Context, id int64, o store.Outcome) error {
	began := time.Now()
	err := c.Store.Finish(ctx, id, o)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.at[id] = time.Now()
	}
	c.took = append(c.took, time.Since(began))
	return err
}

// Connections is the ledger's: committedStore is no bound of its own.
func (c *committedStore) Connections() int { return store.ConnectionsOf(c.Store) }

// busyLedgerLines is how many tasks replay at once in TestOutcomeLag, as
// the 30 lines of a daemon's start that found the moment between a job's
// exit and its outcome's commit grown to hundreds of milliseconds.
const busyLedgerLines = 30

// TestOutcomeLag measures, in a busy daemon (busyLedgerLines tasks
// replaying 4 missed slots each at once, their claims, boot sightings and
// reads on the ledger), how long after its job's exit each outcome is
// committed: the at-least-once window, in which a power cut leaves a run
// whose job completed `running`, for the next start to run again. It is
// a measure, not a check (a busy machine's scheduling is in it too):
// CATCHUP_TEST_OUTCOME_LAG=sqlite, postgres or all runs it.
// TestOutcomeGoesAheadOfQueuedCalls is the check.
func TestOutcomeLag(t *testing.T) {
	which := os.Getenv("CATCHUP_TEST_OUTCOME_LAG")
	if which == "" {
		t.Skip("a measure: set CATCHUP_TEST_OUTCOME_LAG=sqlite, postgres or all to run it")
	}
	for _, name := range []string{"sqlite", "postgres"} {
		if which != "all" && which != name {
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			st, db := replicaLedgers[name](t, dir)
			cs := &committedStore{Store: st, at: map[int64]time.Time{}}
			d, tasks := newBusyDaemon(t, cs, db, dir)
			var wg sync.WaitGroup
			for _, task := range tasks {
				wg.Go(func() { d.scan(t.Context(), task, time.Time{}, time.Time{}) })
			}
			wg.Wait()
			lags := outcomeLags(t, dir, cs)
			if len(lags) < busyLedgerLines*3 {
				t.Fatalf("%d outcomes recorded, want at least %d", len(lags), busyLedgerLines*3)
			}
			slices.Sort(lags)
			slices.Sort(cs.took)
			t.Logf("%s: job exit to outcome commit, %d outcomes: median %s, 90%% %s, max %s; the commit's own call: median %s, max %s",
				name, len(lags), lags[len(lags)/2], lags[len(lags)*9/10], lags[len(lags)-1], cs.took[len(cs.took)/2], cs.took[len(cs.took)-1])
		})
	}
}

// newBusyDaemon is a daemon over st with busyLedgerLines tasks, each
// missing its last 4 minutely slots, whose job writes its run id and
// when it ended (bash's EPOCHREALTIME, no process of its own) to
// ended.log in dir.
func newBusyDaemon(t *testing.T, st store.Store, db, dir string) (*Daemon, []Task) {
	t.Helper()
	now := time.Date(2026, 3, 1, 9, 56, 30, 0, time.UTC) // registered then; 4 slots missed by 10:00:30
	m := catchup.Machine{Now: func() time.Time { return now }, Host: "h", PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: filepath.Join(dir, "locks"), DB: db, Zone: "UTC", BootID: "boot-1",
		Stdout: io.Discard, Stderr: io.Discard, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	sched, err := schedule.Parse("* * * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"/bin/bash", "-c", `echo "$CATCHUP_RUN_ID $EPOCHREALTIME" >> ended.log`}
	var tasks []Task
	for i := range busyLedgerLines {
		name := fmt.Sprintf("job%d", i)
		def := store.Task{Name: name, Schedule: "* * * * *", TZ: "UTC", Replay: "all", Argv: argv, Dir: dir,
			Source: fmt.Sprintf("daemon:test:%d", i+1)}
		if def, _, err = catchup.RegisterDaemonTask(t.Context(), st, m, def, false, time.Time{}); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: name, Argv: argv, Dir: dir}})
	}
	now = now.Add(4 * time.Minute)
	return New(Config{Store: st, Machine: m, Tasks: tasks, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}), tasks
}

// outcomeLags is, for each job that wrote its end to ended.log, how long
// after it its outcome was committed.
func outcomeLags(t *testing.T, dir string, cs *committedStore) []time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "ended.log"))
	if err != nil {
		t.Fatal(err)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var lags []time.Duration
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		id, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("ended.log: %q", line)
		}
		sec, err := strconv.ParseFloat(strings.Replace(f[1], ",", ".", 1), 64)
		if err != nil {
			t.Fatalf("ended.log: %q", line)
		}
		at, ok := cs.at[id]
		if !ok {
			t.Errorf("run %d's job ended, its outcome never committed", id)
			continue
		}
		lags = append(lags, at.Sub(time.Unix(0, int64(sec*1e9))))
	}
	return lags
}
