package daemon

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestOutcomeWaitingForTheLedgerIsSeen: a fire whose job ends while
// another process holds the ledger (SQLite: a second connection in BEGIN
// IMMEDIATE; PostgreSQL: LOCK TABLE runs) waits to write its outcome, but
// not in silence, as its first write would not: once that write has
// waited ledgerWaitBound, the ledger counts as failing (from the write's
// start) and one WARN line (event=ledger) says that fires wait for it,
// naming the outcome; once the lock goes, the outcome is written and the
// ledger counts as recording again. Before, only a fire's first write was
// watched: its outcome (the at-least-once moment: a power cut then runs
// the slot again) waited unseen, the metric at 0, for as long as the lock
// was held.
func TestOutcomeWaitingForTheLedgerIsSeen(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			st, db := replicaLedgers[name](t, dir)
			slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			now := slot.Add(-time.Minute)
			r := newReplica(t, st, db, dir, replicaLockDir(st, dir)("h1"), "h1", &now)
			r.load(t, "* * * * *")
			r.d.ledgerWaitBound = time.Second
			fifo := filepath.Join(dir, "end")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			r.task.Req.Argv = []string{"/bin/sh", "-c", `read x < end; echo "$CATCHUP_SLOT $CATCHUP_HOST" >> fires.log`}
			now = slot.Add(time.Second)
			fired := make(chan struct{})
			go func() { r.d.fire(ctx, r.task, slot); close(fired) }()
			waitUntil(t, "the job to start", func() bool { return r.d.Lag().Running == 1 }, r)
			unlock := holdLedger(t, name, db)
			defer unlock()
			end, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			end.WriteString("go\n")
			end.Close()
			waitUntil(t, "the outcome's wait for the ledger to be seen (LedgerFailing > 0, a WARN line)", func() bool {
				return r.d.Lag().LedgerFailing > 0 && strings.Contains(r.logs.String(), "level=WARN")
			}, r)
			if lag := r.d.Lag(); lag.LedgerFailing < time.Second {
				t.Errorf("LedgerFailing is %s; want it counted from the outcome's write (at least the bound, 1s)", lag.LedgerFailing)
			}
			time.Sleep(1500 * time.Millisecond) // the warning is said once, not at each bound
			unlock()
			select {
			case <-fired:
			case <-time.After(30 * time.Second):
				t.Fatalf("the fire did not end within 30s of the lock going:\n%s", r.logs.String())
			}
			logs := r.logs.String()
			warn := regexp.MustCompile(`(?m)^.*level=WARN msg="fires wait for the ledger: a fire has waited 1s for its outcome's write.*event=ledger task=job slot=2026-03-01T10:00:00Z.*$`)
			if n := len(warn.FindAllString(logs, -1)); n != 1 {
				t.Errorf("the outcome's wait is warned of %d times; want once, naming it:\n%s", n, logs)
			}
			if !regexp.MustCompile(`msg="fires no longer wait for the ledger" event=ledger task=job`).MatchString(logs) {
				t.Errorf("the wait's end is not logged:\n%s", logs)
			}
			if lag := r.d.Lag(); lag.LedgerFailing != 0 || lag.FiresUnrecorded != 0 {
				t.Errorf("once the outcome is written Lag is %+v; want LedgerFailing 0, FiresUnrecorded 0", lag)
			}
			runs, err := st.History(ctx, store.HistoryFilter{Task: "job"})
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 || runs[0].Status != store.StatusSucceeded {
				t.Errorf("the ledger holds %+v; want the slot's run succeeded", runs)
			}
		})
	}
}
