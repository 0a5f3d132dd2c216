package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/catchup/catchup/internal/pgtest"
)

// TestFleetAtScale: jobs that run at once across 10 simulated hosts fit a
// connection budget far smaller than their number, since a run holds no
// PostgreSQL connection while its command runs (its task lock is a row,
// its heartbeats short connections). The fleet connects as a role with
// CONNECTION LIMIT budget; every job must start (none refused for want of a
// connection), all must be running at once, and each slot must finish
// exactly once. CATCHUP_FLEET_JOBS and CATCHUP_FLEET_BUDGET scale it
// (default 50 jobs on 10 connections, five times the budget: CI's ten
// minutes; scripts/stress-tests.sh runs 100; docs/distributed.md gives the
// 200- and 1,000-job runs).
func TestFleetAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hundreds of processes; skipped with -short")
	}
	jobs, budget := envInt(t, "CATCHUP_FLEET_JOBS", 50), envInt(t, "CATCHUP_FLEET_BUDGET", 10)
	const hosts = 10
	db := pgLedger(t)
	if code := newCatchup(t, db, "", "scan").run(t); code != 0 { // creates the schema
		t.Fatalf("creating the ledger exited %d", code)
	}
	fleetDB, role, schema := budgetRole(t, db, budget)
	admin := pgAdminConn(t)
	ctx := context.Background()

	w := t.TempDir()
	// A job polls for its release once a second: at 10 polls a second, 200
	// waiting jobs started 2,000 sleep processes a second, which starved
	// the server and the fires still starting on a 2-CPU machine.
	job := `touch "$W/started.$T"; i=0; while [ ! -e "$W/release" ] && [ $i -lt 180 ]; do sleep 1; i=$((i+1)); done; ` +
		`echo "$CATCHUP_SLOT" >> "$W/done.$T"`
	type fire struct {
		p    *catchupProc
		task string
		code int
		done chan struct{} // closed once code is set (the waiter owns ProcessState)
	}
	var fires []*fire
	var wg sync.WaitGroup
	began := time.Now()
	for h := 0; h < hosts; h++ {
		host := fleetHost(t, fleetDB, fmt.Sprintf("host-%d", h))
		for j := h; j < jobs; j += hosts {
			f := &fire{task: fmt.Sprintf("job-%04d", j), done: make(chan struct{})}
			f.p = host.catchup("2026-11-20T02:00:05Z", "run", "--task", f.task, "--cron", "0 2 * * *", "--tz", "UTC",
				"--", "sh", "-c", job)
			f.p.cmd.Env = append(f.p.cmd.Env, "W="+w, "T="+f.task)
			if err := f.p.cmd.Start(); err != nil {
				t.Fatalf("start fire %d: %v", j, err)
			}
			fires = append(fires, f)
			wg.Add(1)
			go func() {
				defer wg.Done()
				f.p.cmd.Wait()
				f.code = f.p.cmd.ProcessState.ExitCode()
				close(f.done)
			}()
		}
	}
	t.Cleanup(func() { touch(t, filepath.Join(w, "release")); wg.Wait() })

	// Every job runs at once, on budget connections at most.
	peak := 0
	deadline := time.Now().Add(3 * time.Minute)
	for {
		n := countPrefix(t, w, "started.")
		var conns int
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, role).Scan(&conns); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, conns)
		if n == jobs {
			break
		}
		for _, f := range fires {
			select {
			case <-f.done:
				t.Fatalf("%s exited %d before it was released (%d of %d running): %s", f.task, f.code,
					n, jobs, f.p.stderr.String())
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up: %d of %d jobs started", n, jobs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	started := time.Since(began)
	var held int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, role).Scan(&held); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs on %d hosts running at once after %v; connections of the fleet now %d, peak seen %d (budget %d)",
		jobs, hosts, started.Round(time.Millisecond), held, peak, budget)

	touch(t, filepath.Join(w, "release"))
	wg.Wait()
	for _, f := range fires {
		if f.code != 0 {
			t.Errorf("%s exited %d: %s", f.task, f.code, f.p.stderr.String())
		}
		if got := readLines(t, filepath.Join(w, "done."+f.task)); len(got) != 1 || got[0] != "2026-11-20T02:00:00Z" {
			t.Errorf("%s finished %v, want its slot once", f.task, got)
		}
	}
	var runs, succeeded int
	if err := admin.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status = 'succeeded') FROM `+
		pgx.Identifier{schema, "runs"}.Sanitize()).Scan(&runs, &succeeded); err != nil {
		t.Fatal(err)
	}
	if runs != jobs || succeeded != jobs {
		t.Errorf("the ledger holds %d runs, %d succeeded; want %d and %d", runs, succeeded, jobs, jobs)
	}
	t.Logf("all %d recorded after %v", jobs, time.Since(began).Round(time.Millisecond))
}

// budgetRole makes a login role of the test's own with CONNECTION LIMIT
// budget and the rights catchup needs on the ledger's schema, and returns
// the ledger's DSN as that role, the role and the schema.
func budgetRole(t *testing.T, db string, budget int) (dsn, role, schema string) {
	t.Helper()
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	schema = strings.TrimPrefix(u.Query().Get("options"), "-csearch_path=")
	var b [4]byte
	rand.Read(b[:])
	role = "catchup_fleet_" + hex.EncodeToString(b[:])
	admin := pgAdminConn(t)
	ctx := context.Background()
	s, r := pgx.Identifier{schema}.Sanitize(), pgx.Identifier{role}.Sanitize()
	for _, q := range []string{
		`CREATE ROLE ` + r + ` LOGIN CONNECTION LIMIT ` + strconv.Itoa(budget),
		`GRANT USAGE ON SCHEMA ` + s + ` TO ` + r,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ` + s + ` TO ` + r,
		`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ` + s + ` TO ` + r,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		admin.Exec(context.Background(), `DROP OWNED BY `+r)
		admin.Exec(context.Background(), `DROP ROLE `+r)
	})
	u.User = url.User(role)
	// All the hosts share this machine's CPUs, and so does the server, which
	// forks a backend for every attempt (a refused one too): under the
	// burst a connection may take longer than catchup's default 10 s to be
	// answered, which is this machine's load, not the budget under test.
	q := u.Query()
	q.Set("connect_timeout", "120")
	u.RawQuery = q.Encode()
	return u.String(), role, schema
}

// pgAdminConn is a connection to the test server as the test's own user.
func pgAdminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// countPrefix counts the files in dir whose name starts with prefix.
func countPrefix(t *testing.T, dir, prefix string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range es {
		if strings.HasPrefix(e.Name(), prefix) {
			n++
		}
	}
	return n
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
