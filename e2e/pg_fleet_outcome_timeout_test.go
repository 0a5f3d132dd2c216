package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestFleetOutcomeOutlastsATimeout: host-a's job has ended, but its
// outcome's write waits for the run's row, which another session holds (a
// psql left in a transaction), past a timeout the server is set with (the
// role's or database's statement_timeout or lock_timeout, as managed
// services often set them; here in the DSN's options). The server cancels
// the write: the ledger answered, nothing is lost, the write is safe to
// repeat. host-a repeats it until it is recorded, as for a lost connection.
// Before, it gave up at once ("cannot record the outcome", noted for its
// own next scan): the run stayed `running` without heartbeats, and host-b's
// scan after the lease took it for dead and ran the slot a second time.
func TestFleetOutcomeOutlastsATimeout(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	for _, tc := range []struct{ name, option string }{
		{"statement timeout", "-cstatement_timeout=3000"},
		{"lock timeout", "-clock_timeout=1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := pgLedger(t)
			u, err := url.Parse(db)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("options", q.Get("options")+" "+tc.option)
			u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // the driver reads no + as a space
			a, b := fleetHost(t, u.String(), "host-a"), fleetHost(t, db, "host-b")
			// The ledger's schema is made first, without the timeout: on a
			// loaded machine (the stress script's busy loops) its first
			// use's migration took over the second, and host-a's fire
			// refused to run.
			if warm := b.catchup("2026-11-20T01:00:05Z", "run", "--task", "warm", "--", "true"); warm.run(t) != 0 {
				t.Fatalf("a first fire on host-b: %s", warm.stderr.String())
			}
			ran := filepath.Join(t.TempDir(), "ran.log")
			// host-a's job waits for the row to be held (a replay elsewhere does not).
			job := `touch "$W/started"; i=0; while [ "$CATCHUP_HOST" = host-a ] && [ ! -e "$W/go" ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done; ` +
				`echo "$CATCHUP_SLOT $CATCHUP_HOST" >> ` + ran
			p := a.catchup("2026-11-20T02:00:05Z", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", job)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { p.cmd.Wait(); close(exited) }()
			waitFor(t, "host-a's job to start", func() bool {
				select {
				case <-exited:
					t.Fatalf("host-a's fire exited before its job started: %s", p.stderr.String())
				default:
				}
				_, err := os.Stat(filepath.Join(a.dir, "started"))
				return err == nil
			})

			ctx := context.Background()
			admin, err := pgx.Connect(ctx, db) // in the ledger's schema
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { admin.Close(ctx) })
			tx, err := admin.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `SELECT id FROM runs WHERE task = 'settle' FOR UPDATE`); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(a.dir, "go"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "host-a's outcome write to be cancelled by the server", func() bool {
				return strings.Contains(p.stderr.String(), "cannot record the outcome of run")
			})
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "host-a's fire to exit", func() bool {
				select {
				case <-exited:
					return true
				default:
					return false
				}
			})
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("host-a's fire exited %d, want 0: %s", code, p.stderr.String())
			}
			if strings.Contains(p.stderr.String(), "noted on this host") {
				t.Errorf("host-a gave its outcome up to a note: %s", p.stderr.String())
			}

			scan := b.catchup("2026-11-20T03:00:00Z", "--lease", "2s", "scan")
			if code := scan.run(t); code != 0 {
				t.Fatalf("host-b's scan after the lease: exit %d: %s", code, scan.stderr.String())
			}
			if got := readLines(t, ran); len(got) != 1 || got[0] != "2026-11-20T02:00:00Z host-a" {
				t.Errorf("the slot ran %q, want once on host-a\nhost-a: %s\nhost-b's scan: %s", got, p.stderr.String(), scan.stdout.String())
			}
			hist := newCatchup(t, db, "2026-11-20T03:00:00Z", "history", "settle", "-o", "json")
			hist.run(t)
			if h := hist.stdout.String(); strings.Count(h, `"status": "succeeded"`) != 1 || strings.Contains(h, `"status": "interrupted"`) {
				t.Errorf("history: %s", h)
			}
		})
	}
}
