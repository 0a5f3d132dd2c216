package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRootWritersReadNoZonePathItsUserCannot: nobody's `catchup run
// --cron --tz FILE` registered its task with a zone file (a copy of
// Asia/Tokyo) that nobody could read then, its zone kept as that path (as
// an older catchup registered it; a shared ledger takes what any of its
// users writes); on SQLite, root took nobody's ledger file over; the directory holding it is root's alone now. Root's writers
// on that task (prune, pause, resume --replay-paused, forget) must not
// read the file with root's rights: they recorded nobody's slots,
// computed in a zone only root could read, `expired` and `paused` on a
// ledger nobody reads. Prune leaves the task whole, saying its zone is
// unknown as nobody; pause, resume and forget go on; no slot is recorded.
// Root's own fire of the task (`catchup run --task who`, no --cron) reads
// its registered schedule likewise: ignored, said, the run no slot's (it
// stood for 00:00 in that zone).
func TestRootWritersReadNoZonePathItsUserCannot(t *testing.T) {
	t.Parallel()
	needRoot(t)
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			tokyo, err := os.ReadFile("/usr/share/zoneinfo/Asia/Tokyo")
			if err != nil {
				t.Skip("needs the zone database: ", err)
			}
			bin := testBinDir(t)
			top := filepath.Dir(bin) // traversable by everyone (testBinDir)
			home := userDir(t, top, "nobody-home", 65534, 65534)
			db := filepath.Join(home, "catchup.db") // nobody's own
			if backend == "postgres" {
				db = pgLedger(t)
			}
			zones := filepath.Join(top, "zones")
			if err := os.Mkdir(zones, 0o755); err != nil {
				t.Fatal(err)
			}
			zone := filepath.Join(zones, "zone")
			if err := os.WriteFile(zone, tokyo, 0o644); err != nil {
				t.Fatal(err)
			}
			fire := nobodysCatchup(t, bin, home, db, "2026-01-01T00:00:05Z", "run", "--task", "who", "--cron", "0 * * * *", "--tz", zone, "--", "true")
			if code := fire.run(t); code != 0 {
				t.Fatalf("nobody's fire exited %d: %s", code, fire.stderr.String())
			}
			asPath(t, backend, db, "who", zone)
			if err := os.Chmod(zones, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, step := range []struct {
				now  string
				args []string
				said string // in its output; "" when it says nothing of the zone
			}{
				{"2026-01-10T00:00:05Z", []string{"run", "--task", "who", "--", "true"},
					`registered schedule ignored: unknown time zone "` + zone + `" (a zone file's path, as nobody: permission denied)`},
				{"2026-01-10T00:30:00Z", []string{"prune", "--older-than", "7d"}, `unknown time zone "` + zone + `" (a zone file's path, as nobody: permission denied)`},
				{"2026-01-10T00:40:00Z", []string{"pause", "who"}, ""},
				{"2026-01-10T03:40:00Z", []string{"resume", "who", "--replay-paused"}, ""},
				{"2026-01-10T04:00:00Z", []string{"forget", "who"}, ""},
			} {
				p := newCatchup(t, db, step.now, step.args...)
				code := p.run(t)
				out := p.stdout.String() + p.stderr.String()
				if code != 0 || !strings.Contains(out, step.said) {
					t.Errorf("root's %s exited %d, said %q; want 0 and %q", step.args[0], code, out, step.said)
				}
			}
			for _, status := range []string{"expired", "paused"} {
				h := newCatchup(t, db, "2026-01-10T04:00:00Z", "history", "--status", status, "--limit", "1000", "-o", "json")
				if code := h.run(t); code != 0 || strings.Contains(h.stdout.String(), `"slot"`) {
					t.Errorf("root's history --status %s (exit %d): %s%s; want no slot recorded %s in a zone only root could read",
						status, code, h.stdout.String(), h.stderr.String(), status)
				}
			}
			h := newCatchup(t, db, "2026-01-10T04:00:00Z", "history", "--status", "succeeded", "--limit", "1000", "-o", "json")
			if code := h.run(t); code != 0 || strings.Count(h.stdout.String(), `"slot": "`) != 1 {
				t.Errorf("root's history --status succeeded (exit %d): %s%s; want the slot of nobody's fire only, root's fire none",
					code, h.stdout.String(), h.stderr.String())
			}
		})
	}
}

// asPath registers task's zone as path in ledger db, as an older catchup
// did (this one registers a copy of a zone of the database by its name);
// a SQLite ledger, nobody's, becomes root's (its locks, none held, gone).
func asPath(t *testing.T, backend, db, task, path string) {
	t.Helper()
	if backend == "sqlite" {
		for _, f := range []string{db, db + "-wal", db + "-shm"} {
			if err := os.Chown(f, 0, 0); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		if err := os.RemoveAll(db + ".locks"); err != nil { // nobody's locks: none held, no note left
			t.Fatal(err)
		}
		ledgerRows(t, db, "UPDATE tasks SET tz = ? WHERE name = ?", path, task)
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE tasks SET tz = $1 WHERE name = $2", path, task); err != nil {
		t.Fatal(err)
	}
}
