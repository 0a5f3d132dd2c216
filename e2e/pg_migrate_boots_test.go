package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMigrateBoots: migrate carries the boots a host recorded, so that the
// shared ledger still says why an old slot was missed (here: the host was
// down between two boots); a second migrate adds no boot twice.
func TestMigrateBoots(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	pg := pgLedger(t)
	_, lite := tempLedger(t)
	fire := newCatchup(t, lite, "2026-11-20T02:00:03Z", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "true")
	fire.cmd.Env = append(fire.cmd.Env, "CATCHUP_BOOT_ID=boot-1", "CATCHUP_BOOT_TIME=2026-11-01T00:00:00Z")
	if code := fire.run(t); code != 0 {
		t.Fatalf("fire: exit %d: %s", code, fire.stderr.String())
	}
	for i := 0; i < 2; i++ {
		if code := newCatchup(t, lite, "", "migrate", "--from", lite, "--to", pg).run(t); code != 0 {
			t.Fatalf("migrate #%d failed", i+1)
		}
	}
	conn, err := pgx.Connect(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM boots`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("boots on the shared ledger after two migrates: %d (%v), want 1", n, err)
	}
	ls := newCatchup(t, pg, "2026-11-23T08:00:00Z", "ls", "--missed", "-o", "json")
	ls.cmd.Env = append(ls.cmd.Env, "CATCHUP_BOOT_ID=boot-2", "CATCHUP_BOOT_TIME=2026-11-23T07:58:00Z")
	out := ls.stdout.String
	if code := ls.run(t); code != 1 || strings.Count(out(), `"host-down"`) != 3 {
		t.Fatalf("ls --missed on the shared ledger: exit %d\n%s%s\nwant 3 slots missed because the host was down",
			code, out(), ls.stderr.String())
	}
	explain := newCatchup(t, pg, "2026-11-23T08:00:00Z", "explain", "settle", "2026-11-21T02:00:00Z")
	explain.cmd.Env = append(explain.cmd.Env, "CATCHUP_BOOT_ID=boot-2", "CATCHUP_BOOT_TIME=2026-11-23T07:58:00Z")
	if code := explain.run(t); code != 0 || strings.Count(explain.stdout.String(), "boot boot-1") != 1 {
		t.Fatalf("explain on the shared ledger: exit %d\n%s%s\nwant boot-1 named once", code, explain.stdout.String(), explain.stderr.String())
	}
}
