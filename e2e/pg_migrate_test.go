package e2e

import (
	"strings"
	"testing"
)

// TestMigrate copies a host's SQLite history into a shared ledger: the runs
// are there with their host, a second migrate copies nothing, and the slots
// that succeeded on the host are not replayed by the fleet.
func TestMigrate(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	pg := pgLedger(t)
	lite := threeNights(t)
	for i, want := range []string{"migrated 1 task and 3 runs", "nothing new to migrate from "} {
		m := newCatchup(t, lite, "", "migrate", "--from", lite, "--to", pg)
		if code := m.run(t); code != 0 || !strings.Contains(m.stdout.String(), want) {
			t.Fatalf("migrate #%d: exit %d, %q %q; want %q", i+1, code, m.stdout.String(), m.stderr.String(), want)
		}
		if strings.Contains(m.stdout.String()+m.stderr.String(), "postgres://") {
			t.Errorf("migrate printed a DSN (it may hold a password): %s", m.stdout.String())
		}
	}
	h := newCatchup(t, pg, "2026-11-20T03:00:00Z", "history", "settle", "-o", "json")
	if code := h.run(t); code != 0 || strings.Count(h.stdout.String(), `"host": "testhost"`) != 3 {
		t.Fatalf("history on the shared ledger: %s %s", h.stdout.String(), h.stderr.String())
	}
	scan := newCatchup(t, pg, "2026-11-20T03:00:00Z", "scan", "-v")
	if code := scan.run(t); code != 0 || !strings.Contains(scan.stdout.String(), "settle: 0 missed") {
		t.Fatalf("scan on the shared ledger replayed migrated slots: %s %s", scan.stdout.String(), scan.stderr.String())
	}
	again := newCatchup(t, pg, "2026-11-20T02:00:30Z", "run", "--task", "settle", "--", "true")
	if again.run(t); !strings.Contains(again.stderr.String(), "already succeeded") {
		t.Errorf("a fleet fire of a migrated slot: %q, want it found done", again.stderr.String())
	}
}

// TestMigratePrunedSlots: a slot whose successful run was pruned on the
// host stays done on the shared ledger after migrate. (The prune records
// the 32 slots missed since as expired first: newer, they leave none of
// the three runs the latest; the last, the newest that ran, stays.)
func TestMigratePrunedSlots(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	pg := pgLedger(t)
	lite := threeNights(t)
	if p := newCatchup(t, lite, "2026-12-30T00:00:00Z", "prune", "--older-than", "7d"); p.run(t) != 0 || !strings.Contains(p.stdout.String(), "deleted 2 runs") {
		t.Fatalf("prune: %s %s", p.stdout.String(), p.stderr.String())
	}
	if m := newCatchup(t, lite, "", "migrate", "--from", lite, "--to", pg); m.run(t) != 0 {
		t.Fatalf("migrate: %s", m.stderr.String())
	}
	again := newCatchup(t, pg, "2026-12-30T00:00:00Z", "run", "--task", "settle", "--slot", "2026-11-18T02:00:00Z", "--", "sh", "-c", "echo ran")
	if again.run(t); !strings.Contains(again.stderr.String(), "already succeeded") || strings.Contains(again.stdout.String(), "ran") {
		t.Errorf("a pruned, migrated slot ran again: %q %q", again.stdout.String(), again.stderr.String())
	}
	if m := newCatchup(t, lite, "", "migrate", "--from", lite, "--to", pg); m.run(t) != 0 {
		t.Fatalf("a second migrate: %s", m.stderr.String())
	}
}

// threeNights is a SQLite ledger where task settle ran on three nights.
func threeNights(t *testing.T) string {
	t.Helper()
	_, lite := tempLedger(t)
	for _, now := range []string{"2026-11-18T02:00:04Z", "2026-11-19T02:00:04Z", "2026-11-20T02:00:04Z"} {
		if code := newCatchup(t, lite, now, "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "true").run(t); code != 0 {
			t.Fatal("seeding the SQLite ledger failed")
		}
	}
	return lite
}
