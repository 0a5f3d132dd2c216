package e2e

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestFleetFiresHeldUpByALock: two hosts' fires of one slot, both held up
// by another session's lock of the tasks (a psql left in a transaction, a
// tool's long one) for longer than the lease, run the slot once: the first
// claim made once the lock is let go is alive, and the second is a
// duplicate. Before, the first claim's run was written with the heartbeat
// of when it was asked for, dead by the lease at birth: the second host's
// claim, a moment later, took it for dead and ran the slot beside it.
func TestFleetFiresHeldUpByALock(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	ran := filepath.Join(t.TempDir(), "ran.log")
	job := `echo "$CATCHUP_HOST" >> ` + ran + `; sleep 1`
	reg := fleetHost(t, db, "host-r")
	if p := reg.catchup("2026-11-20T05:00:05Z", "run", "--task", "held", "--cron", "* * * * *", "--tz", "UTC", "--", "true"); p.run(t) != 0 {
		t.Fatalf("registering fire: %s", p.stderr.String())
	}
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	schema := strings.TrimPrefix(u.Query().Get("options"), "-csearch_path=")
	admin, watch := pgAdminConn(t), pgAdminConn(t) // watch: a transaction sees pg_stat_activity as it first read it
	ctx := context.Background()
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A lock every claim's write of the task waits for, whatever it writes
	// there (a registration, or only the task's row if missing).
	if _, err := tx.Exec(ctx, `LOCK TABLE `+pgx.Identifier{schema, "tasks"}.Sanitize()+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var holder int
	if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&holder); err != nil {
		t.Fatal(err)
	}

	const lease = 2 * time.Second
	var fires []*catchupProc
	for _, name := range []string{"host-a", "host-b"} {
		p := fleetHost(t, db, name).catchup("2026-11-20T05:10:05Z", "--lease", "2s",
			"run", "--task", "held", "--cron", "* * * * *", "--tz", "UTC", "--", "sh", "-c", job)
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		fires = append(fires, p)
	}
	defer func() { // on a failure too: the fires end once the lock is let go
		tx.Rollback(ctx)
		for _, p := range fires {
			p.cmd.Wait()
		}
	}()
	for deadline := time.Now().Add(time.Minute); ; {
		var waiting int
		if err := watch.QueryRow(ctx, `WITH w AS (SELECT pid, pg_blocking_pids(pid) AS b FROM pg_stat_activity)
SELECT count(*) FROM w WHERE $1 = ANY(b) OR EXISTS (SELECT 1 FROM w AS v WHERE v.pid = ANY(w.b) AND $1 = ANY(v.b))`, holder).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the 2 fires wait for the lock after a minute", waiting)
		}
		time.Sleep(50 * time.Millisecond)
	}
	<-time.After(lease + time.Second) // the fault: the lock held past the lease
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for i, p := range fires {
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("fire %d: %v\n%s", i, err, p.stderr.String())
		}
	}
	said := []string{fires[0].stderr.String(), fires[1].stderr.String()}
	fires = nil
	if got := readLines(t, ran); len(got) != 1 {
		t.Errorf("the slot ran on %v; want once (fires said %q)", got, said)
	}
}
