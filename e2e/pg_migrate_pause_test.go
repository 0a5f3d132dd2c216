package e2e

import (
	"strings"
	"testing"
)

// TestMigrateCarriesALaterPause: a task paused and resumed on the host, its
// ended pause migrated, then paused again on the host: the next migrate
// carries the new pause (the shared ledger's pause had ended before it
// began), and a third migrate changes nothing.
func TestMigrateCarriesALaterPause(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	pg := pgLedger(t)
	_, lite := tempLedger(t)
	migrate := []string{"migrate", "--from", lite, "--to", pg}
	steps := []struct {
		now  string
		args []string
	}{
		{"2026-03-02T02:00:10Z", []string{"run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC", "--", "true"}},
		{"2026-03-02T12:00:00Z", []string{"pause", "t"}},
		{"2026-03-03T12:00:00Z", []string{"resume", "t"}},
		{"", migrate},
		{"2026-03-04T12:00:00Z", []string{"pause", "t"}},
		{"", migrate},
	}
	for _, s := range steps {
		p := newCatchup(t, lite, s.now, s.args...)
		if code := p.run(t); code != 0 {
			t.Fatalf("%s: exit %d: %s %s", s.args[0], code, p.stdout.String(), p.stderr.String())
		}
	}
	paused := func(when string) {
		t.Helper()
		ls := newCatchup(t, pg, "2026-03-05T01:00:00Z", "ls", "-o", "json")
		if code := ls.run(t); code != 0 || !strings.Contains(ls.stdout.String(), `"paused": true`) {
			t.Fatalf("%s: the shared ledger's task is not paused (exit %d): %s %s", when, code, ls.stdout.String(), ls.stderr.String())
		}
		fire := newCatchup(t, pg, "2026-03-05T02:00:10Z", "run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", "echo ran")
		if code := fire.run(t); code != 0 || strings.Contains(fire.stdout.String(), "ran") ||
			!strings.Contains(fire.stderr.String(), "paused (since 2026-03-04T12:00:00Z") {
			t.Fatalf("%s: a fleet fire of the paused task: exit %d, %q %q", when, code, fire.stdout.String(), fire.stderr.String())
		}
	}
	paused("after the second migrate")
	again := newCatchup(t, lite, "", migrate...)
	if code := again.run(t); code != 0 {
		t.Fatalf("third migrate: exit %d: %s", code, again.stderr.String())
	}
	paused("after a third migrate")
}
