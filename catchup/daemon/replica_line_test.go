package daemon

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/internal/pgtest"
	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
	"github.com/catchup/catchup/store/sqlite"
)

// replicaLockDir is the lock directory of each replica (by host) on
// ledger st in dir: a host of its own on a shared ledger, else one for the
// two daemons on one host.
func replicaLockDir(st store.Store, dir string) func(host string) string {
	return func(host string) string {
		if st.Shared() {
			return filepath.Join(dir, "state-"+host)
		}
		return filepath.Join(dir, "state")
	}
}

// replicaLedgers open one ledger that two daemons share, by name: a SQLite
// file (two daemons on one host) and, when pgtest's DSN is set, a
// PostgreSQL schema of the test's own (two replicas of a fleet). open
// returns the store and the ledger's name as --db gives it.
var replicaLedgers = map[string]func(t *testing.T, dir string) (store.Store, string){
	"sqlite": func(t *testing.T, dir string) (store.Store, string) {
		path := filepath.Join(dir, "catchup.db")
		st, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, path
	},
	"postgres": func(t *testing.T, _ string) (store.Store, string) {
		dsn, err := pgtest.Schema(t, pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, dsn
	},
}

// replica is one `catchup daemon` of a ledger another shares, under the
// test's clock, with one crontab line (task job, UTC) whose job appends
// "$CATCHUP_SLOT HOST" to fires.log in the shared directory.
type replica struct {
	host string
	st   store.Store
	d    *Daemon
	task Task
	dir  string
	logs safeBuffer
}

func newReplica(t *testing.T, st store.Store, db, dir, lockDir, host string, now *time.Time) *replica {
	t.Helper()
	r := &replica{host: host, st: st, dir: dir, logs: safeBuffer{b: &bytes.Buffer{}}}
	m := catchup.Machine{Now: func() time.Time { return *now }, Host: host, PID: os.Getpid(), UID: os.Geteuid(),
		LockDir: lockDir, DB: db, Zone: "UTC", Stdout: io.Discard, Stderr: io.Discard,
		Environ: []string{"PATH=" + os.Getenv("PATH"), "CATCHUP_HOST=" + host}}
	r.d = New(Config{Store: st, Machine: m, Log: slog.New(slog.NewTextHandler(&r.logs, nil))})
	return r
}

// load reads the replica's line as expr, as its start or a reload does:
// registered (RegisterDaemonTask), fired from now on.
func (r *replica) load(t *testing.T, expr string) { r.loadIn(t, expr, "UTC", false) }

// loadIn is load of a line in zone tz, the host's (no --tz, no CRON_TZ)
// when fromHost: its slots read in the zone registered, as cmd reads them.
func (r *replica) loadIn(t *testing.T, expr, tz string, fromHost bool) {
	t.Helper()
	m := r.d.cfg.Machine
	argv := []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_HOST" >> fires.log`}
	def := store.Task{Name: "job", Schedule: expr, TZ: tz, Replay: "all", Argv: argv, Dir: r.dir,
		Source: Source("/etc/catchup/crontab", 1, os.Geteuid(), false)}
	def, _, err := catchup.RegisterDaemonTask(t.Context(), r.st, m, def, fromHost, m.Now())
	if err != nil {
		t.Fatal(err)
	}
	loc, err := schedule.LoadZone(def.TZ)
	if err != nil {
		t.Fatal(err)
	}
	sched, err := schedule.Parse(expr, loc)
	if err != nil {
		t.Fatal(err)
	}
	r.task = Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: "job", Argv: argv, Dir: r.dir}, ZoneFromHost: fromHost}
	r.d.setLoaded(r.task, false) // its loop runs this line now
}

// ran is how many times the job ran, by slot (in UTC, RFC 3339: the job's
// $CATCHUP_SLOT is in the zone of the schedule it ran under).
func ran(t *testing.T, dir string) map[string]int {
	b, _ := os.ReadFile(filepath.Join(dir, "fires.log"))
	n := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			slot, err := time.Parse(time.RFC3339, f[0])
			if err != nil {
				t.Fatalf("fires.log: %v", err)
			}
			n[slot.UTC().Format(time.RFC3339)]++
		}
	}
	return n
}

// warnings are the replica's WARN log lines.
func (r *replica) warnings() []string {
	var w []string
	for _, line := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(line, "level=WARN") {
			w = append(w, line)
		}
	}
	return w
}

// TestReplicaWithAnOlderLine: during a rolling edit of a crontab line from
// "* * * * *" to "*/2 * * * *", replica r1 reloads the edited line and
// registers it; replica r2, still with the old line, fires 10:01, no slot
// of the registration. It registers its own line as it fires (the last
// registration wins: the rule of a crontab line's fire off its registered
// schedule, R16), saying so in one WARN naming both schedules and r1; r1,
// whose fires are slots of r2's registration, says once that its line
// differs. Every slot runs once and every reader agrees: explain finds
// each run slot a slot of the registration. Before, r2 ran 10:01 and 10:03
// under "*/2", without a word, and explain said they were no slots.
func TestReplicaWithAnOlderLine(t *testing.T) {
	t.Parallel()
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st, db := open(t, dir)
			now := time.Date(2026, 3, 1, 10, 0, 10, 0, time.UTC)
			lockDir := replicaLockDir(st, dir)
			r1 := newReplica(t, st, db, dir, lockDir("r1"), "r1", &now)
			r2 := newReplica(t, st, db, dir, lockDir("r2"), "r2", &now)
			r1.load(t, "* * * * *")
			r2.load(t, "* * * * *")
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("r1's log:\n%s\nr2's log:\n%s", r1.logs.String(), r2.logs.String())
				}
			})

			now = now.Add(30 * time.Second) // 10:00:40: r1 reloads the edited line
			r1.load(t, "*/2 * * * *")
			slot := func(min int) time.Time { return time.Date(2026, 3, 1, 10, min, 0, 0, time.UTC) }
			fireAt := func(min int, rs ...*replica) {
				now = slot(min).Add(500 * time.Millisecond)
				for _, r := range rs {
					r.d.fire(ctx, r.task, slot(min))
				}
			}
			fireAt(1, r2)
			fireAt(2, r1, r2)
			fireAt(3, r2)
			fireAt(4, r1, r2)

			reg, err := st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			if reg.Schedule != "* * * * *" {
				t.Errorf("registered %q after r2's fires; want r2's line %q (the last registration wins)", reg.Schedule, "* * * * *")
			}
			w2 := r2.warnings()
			if len(w2) != 1 || !strings.Contains(w2[0], "task=job") || !strings.Contains(w2[0], `\"*/2 * * * *\"`) ||
				!strings.Contains(w2[0], `\"* * * * *\"`) || !strings.Contains(w2[0], "host r1") {
				t.Errorf("r2 warned %q; want one warning naming task job, both schedules and host r1", w2)
			}
			w1 := r1.warnings()
			if len(w1) != 1 || !strings.Contains(w1[0], "task=job") || !strings.Contains(w1[0], `\"*/2 * * * *\"`) ||
				!strings.Contains(w1[0], `\"* * * * *\"`) || !strings.Contains(w1[0], "host r2") {
				t.Errorf("r1 warned %q; want one warning (at its 10:02 fire, not again at 10:04) naming task job, both schedules and host r2", w1)
			}

			// Every reader agrees on what ran: each run is a slot of the
			// schedule it was registered under, explain finds it settled
			// (before r2's reload, which makes 10:01 and 10:03 slots of an
			// earlier schedule).
			for _, min := range []int{1, 2, 3, 4} {
				x, err := catchup.Explain(ctx, st, r1.d.cfg.Machine, catchup.ExplainRequest{Task: "job", Slot: slot(min)})
				if err != nil {
					t.Errorf("explain job %s: %v", slot(min).Format(time.RFC3339), err)
					continue
				}
				if x.State != catchup.StateSettled {
					t.Errorf("explain job %s: %s (%s); want %s", slot(min).Format(time.RFC3339), x.State, x.Summary, catchup.StateSettled)
				}
			}
			// r2's crontab is edited too: its reload registers "*/2", which
			// is r1's line again: r1 says nothing more.
			now = slot(4).Add(30 * time.Second)
			r2.load(t, "*/2 * * * *")
			fireAt(6, r1, r2)
			if w := r1.warnings(); len(w) != 1 {
				t.Errorf("r1 warned %d times once the registration is its line again; want the one warning before: %q", len(w), w)
			}

			n := ran(t, dir)
			for _, min := range []int{1, 2, 3, 4, 6} {
				s := slot(min).Format(time.RFC3339)
				if n[s] != 1 {
					t.Errorf("slot %s ran %d times; want once (fires.log: %v)", s, n[s], n)
				}
			}
		})
	}
}

// TestReplicaInAZoneMovedMeanwhile: replica r2's line names no zone, read
// in Europe/Berlin, the zone registered when it started; replica r1's
// version of the line names America/New_York (CRON_TZ), registered at its
// reload. On a shared ledger the line without a zone keeps the registered
// one (the fleet's zone, R16): r2's fire at Berlin's 02:00, no slot of
// the registration, runs nothing, said once (not at the next day's fire);
// before, it ran that time as a slot of "0 2 * * *" in New York, without
// a word. Two daemons of one host (SQLite) have no fleet zone: r2's
// line's zone differs, and its fire registers it (the last registration
// wins).
func TestReplicaInAZoneMovedMeanwhile(t *testing.T) {
	t.Parallel()
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st, db := open(t, dir)
			now := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
			r1 := newReplica(t, st, db, dir, filepath.Join(dir, "state-r1"), "r1", &now)
			r2 := newReplica(t, st, db, dir, filepath.Join(dir, "state-r2"), "r2", &now)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("r2's log:\n%s", r2.logs.String())
				}
			})
			r2.loadIn(t, "0 2 * * *", "Europe/Berlin", true)
			now = now.Add(30 * time.Second)
			r1.loadIn(t, "0 2 * * *", "America/New_York", false)
			berlin := []time.Time{time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC), time.Date(2026, 3, 3, 1, 0, 0, 0, time.UTC)}
			for _, slot := range berlin {
				now = slot.Add(500 * time.Millisecond)
				r2.d.fire(ctx, r2.task, slot)
			}
			reg, err := st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			wantTZ, wantRuns := "America/New_York", 0
			if !st.Shared() {
				wantTZ, wantRuns = "Europe/Berlin", 1
			}
			if reg.TZ != wantTZ {
				t.Errorf("registered in %s after r2's fires; want %s", reg.TZ, wantTZ)
			}
			n := ran(t, dir)
			for _, slot := range berlin {
				if got := n[slot.Format(time.RFC3339)]; got != wantRuns {
					t.Errorf("r2's fire of %s ran %d times; want %d (fires.log: %v)", slot, got, wantRuns, n)
				}
			}
			w := r2.warnings()
			if len(w) != 1 || !strings.Contains(w[0], "America/New_York") || !strings.Contains(w[0], "Europe/Berlin") ||
				!strings.Contains(w[0], "host r1") {
				t.Errorf("r2 warned %q; want one warning naming both zones and host r1", w)
			}
		})
	}
}
