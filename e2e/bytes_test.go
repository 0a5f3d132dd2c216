package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidUTF8Replay: arguments are bytes. A task whose argument,
// working directory, host name and --notify-cmd hold invalid UTF-8 runs,
// registers and is replayed with exactly those bytes, on SQLite and on
// PostgreSQL; and migrate copies such a ledger into a shared one.
func TestInvalidUTF8Replay(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	ledgers := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { _, db := tempLedger(t); return db },
		"postgres": pgLedger,
	}
	for name, ledger := range ledgers {
		t.Run(name, func(t *testing.T) {
			db := ledger(t)
			w := t.TempDir()
			dir := filepath.Join(w, "caf\xe9")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			odd := "a\xffb\xe2\x82"
			// The job writes its argument and its directory, byte for byte.
			job := `printf '%s|%s\n' "$1" "$PWD" >> "$W/args.log"`
			fire := newCatchup(t, db, "2026-11-20T10:00:10Z", "run", "--task", "odd", "--cron", "0 * * * *", "--tz", "UTC",
				"--notify-cmd", "true # \xfe", "--", "sh", "-c", job, "sh", odd)
			fire.cmd.Dir = dir
			fire.cmd.Env = append(fire.cmd.Env, "W="+w, "CATCHUP_HOST=h\xf6st")
			if code := fire.run(t); code != 0 {
				t.Fatalf("the fire exited %d: %s", code, fire.stderr.String())
			}
			scan := newCatchup(t, db, "2026-11-20T12:30:00Z", "scan", "-v")
			scan.cmd.Env = append(scan.cmd.Env, "W="+w, "CATCHUP_HOST=h\xf6st")
			if code := scan.run(t); code != 0 {
				t.Fatalf("scan exited %d: %s%s", code, scan.stdout.String(), scan.stderr.String())
			}
			want := odd + "|" + dir
			got := readLines(t, filepath.Join(w, "args.log"))
			if len(got) != 3 {
				t.Fatalf("the job ran %d times, want 3 (the fire and 2 replays): %q\n%s", len(got), got, scan.stderr.String())
			}
			for i, line := range got {
				if line != want {
					t.Errorf("run %d got %q, want %q", i+1, line, want)
				}
			}
			if name != "sqlite" {
				return
			}
			pg := pgLedger(t)
			m := newCatchup(t, db, "", "migrate", "--from", db, "--to", pg)
			m.cmd.Env = append(m.cmd.Env, "CATCHUP_HOST=h\xf6st")
			if code := m.run(t); code != 0 || !strings.Contains(m.stdout.String(), "migrated 1 task and 3 runs") {
				t.Fatalf("migrate exited %d: %s%s", code, m.stdout.String(), m.stderr.String())
			}
			again := newCatchup(t, pg, "2026-11-20T13:30:00Z", "scan", "-v")
			again.cmd.Env = append(again.cmd.Env, "W="+w)
			if code := again.run(t); code != 0 {
				t.Fatalf("scan of the migrated ledger exited %d: %s", code, again.stderr.String())
			}
			if got := readLines(t, filepath.Join(w, "args.log")); len(got) != 4 || got[3] != want {
				t.Errorf("the migrated task replayed as %q, want %q", got[len(got)-1], want)
			}
		})
	}
}
