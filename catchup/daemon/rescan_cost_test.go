package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/sqlite"
)

// countingStore counts the ledger reads a scan may make for every task
// (Tasks, LastFire, LastFires: each reads every task's), and how many
// scans read the running records (Running: once per scan) at once,
// holding them there until release is closed (nil: not held).
type countingStore struct {
	store.Store
	tasks, lastFires atomic.Int64
	inRunning, most  atomic.Int64
	release          chan struct{}
}

// Connections says the ledger serves as many calls at once as there are
// scans in TestRescansPlanAFewAtOnce: what bounds them there is the
// daemon's plan gate, not its turns for a ledger of one connection
// (ledger_turns.go), which would let one Running in at a time.
func (c *countingStore) Connections() int { return 3 * scansAtOnce }

func (c *countingStore) Tasks(ctx context.Context) ([]store.TaskSummary, error) {
	c.tasks.Add(1)
	return c.Store.Tasks(ctx)
}

func (c *countingStore) LastFire(ctx context.Context, task string) (time.Time, error) {
	c.lastFires.Add(1)
	return c.Store.LastFire(ctx, task)
}

// LastFires counts a last fire per task of the ledger: it reads them all.
func (c *countingStore) LastFires(ctx context.Context) (map[string]time.Time, error) {
	all, err := c.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	c.lastFires.Add(int64(len(all)))
	return c.Store.LastFires(ctx)
}

func (c *countingStore) Running(ctx context.Context) ([]store.Run, error) {
	n := c.inRunning.Add(1)
	defer c.inRunning.Add(-1)
	for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
	}
	if c.release != nil {
		<-c.release
	}
	return c.Store.Running(ctx)
}

// newCountingDaemon is a daemon over a real SQLite ledger with n tasks of
// its crontab (daily, nothing due), its ledger counted.
func newCountingDaemon(t *testing.T, n int) (*Daemon, *countingStore, []Task) {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "catchup.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	m := catchup.Machine{Now: func() time.Time { return now }, Host: "h", PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: filepath.Join(dir, "locks"), DB: filepath.Join(dir, "catchup.db"), Zone: "UTC",
		Stdout: io.Discard, Stderr: io.Discard, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	var tasks []Task
	for i := range n {
		spec := fmt.Sprintf("%d %d * * *", i%60, i%24)
		sched, err := schedule.Parse(spec, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		name, argv := fmt.Sprintf("job%d", i), []string{"/bin/sh", "-c", "/bin/true"}
		def := store.Task{Name: name, Schedule: spec, TZ: "UTC", Argv: argv, Dir: dir, Source: fmt.Sprintf("daemon:test:%d", i+1)}
		if def, _, err = catchup.RegisterDaemonTask(t.Context(), st, m, def, false, time.Time{}); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: name, Argv: argv, Dir: dir}})
	}
	cs := &countingStore{Store: st}
	return New(Config{Store: cs, Machine: m, Tasks: tasks, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}), cs, tasks
}

// TestRescanReadsLinearly: a rescan of the daemon's N tasks (one scan per
// task) reads the ledger's task list and each task's last fire O(N) times
// in all, not once per task each (N full task lists and N^2 last fires:
// at 2,000 lines, gigabytes and minutes).
func TestRescanReadsLinearly(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			d, cs, tasks := newCountingDaemon(t, n)
			for _, task := range tasks {
				d.scan(t.Context(), task, time.Time{}, time.Time{})
			}
			if reads := cs.tasks.Load() + cs.lastFires.Load(); reads > int64(2*n) {
				t.Fatalf("a rescan of %d tasks read the task list %d times and a last fire %d times; want at most %d reads in all",
					n, cs.tasks.Load(), cs.lastFires.Load(), 2*n)
			}
		})
	}
}

// TestRescansPlanAFewAtOnce: the loops of N tasks rescan together (at
// start, and each --rescan), but at most scansAtOnce of their scans read
// the ledger at once, whatever --concurrency (0: jobs unbounded): N scans
// queued on the ledger at once made /metrics, fires and a stop wait.
func TestRescansPlanAFewAtOnce(t *testing.T) {
	t.Parallel()
	const n = 3 * scansAtOnce
	d, cs, tasks := newCountingDaemon(t, n)
	cs.release = make(chan struct{})
	var wg sync.WaitGroup
	for _, task := range tasks {
		wg.Add(1)
		go func() { defer wg.Done(); d.scan(t.Context(), task, time.Time{}, time.Time{}) }()
	}
	deadline := time.Now().Add(30 * time.Second)
	for cs.inRunning.Load() < scansAtOnce {
		if time.Now().After(deadline) {
			close(cs.release)
			t.Fatalf("only %d of %d scans reached the ledger within 30s, want %d", cs.inRunning.Load(), n, scansAtOnce)
		}
		time.Sleep(time.Millisecond)
	}
	close(cs.release)
	wg.Wait()
	if most := cs.most.Load(); most > scansAtOnce {
		t.Fatalf("%d scans read the ledger at once, want at most %d", most, scansAtOnce)
	}
}
