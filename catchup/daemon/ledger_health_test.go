package daemon

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"

	_ "modernc.org/sqlite"
)

// TestDaemonLedgerOutageVisible: with the ledger unable to record a claim
// (its runs table renamed away, as a PostgreSQL table can be), a fire on a
// shared ledger is not run; that skip is an error (level=ERROR), not an
// INFO line; the outage is logged once as it begins and once as it ends,
// and the fires it cost are counted for /metrics. /healthz is not its
// place: a restart does not fix the ledger.
func TestDaemonLedgerOutageVisible(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", slot.Add(-time.Minute))
	f.task.Req.Shared = true // refuse a fire the ledger cannot claim, as on PostgreSQL
	db, err := sql.Open("sqlite", "file:"+f.d.cfg.Machine.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER TABLE runs RENAME TO runs_away`)
	for i := range 3 {
		*f.now = slot.Add(time.Duration(i)*time.Minute + time.Second)
		f.d.fire(ctx, f.task, slot.Add(time.Duration(i)*time.Minute))
	}
	if got := f.fires(); got != "" {
		t.Fatalf("fires the ledger could not claim ran: %q", got)
	}
	lag := f.d.Lag()
	if lag.FiresUnrecorded != 3 || lag.LedgerFailing <= 0 {
		t.Errorf("during the outage Lag is %+v; want FiresUnrecorded 3 and LedgerFailing > 0", lag)
	}
	logs := f.logs.String()
	for _, want := range []string{
		`(?m)^.*level=ERROR .*event=skip task=tick slot=2026-03-01T10:00:00Z exit=75 .*$`,
		`(?m)^.*level=ERROR .*event=skip task=tick slot=2026-03-01T10:02:00Z exit=75 .*$`,
	} {
		if !regexp.MustCompile(want).MatchString(logs) {
			t.Errorf("the daemon logged\n%swant a line matching %s", logs, want)
		}
	}
	if n := len(regexp.MustCompile(`level=ERROR msg="the ledger cannot record fires`).FindAllString(logs, -1)); n != 1 {
		t.Errorf("the outage's start is logged %d times, want once:\n%s", n, logs)
	}
	exec(`ALTER TABLE runs_away RENAME TO runs`)
	*f.now = slot.Add(3*time.Minute + time.Second)
	f.d.fire(ctx, f.task, slot.Add(3*time.Minute))
	if got := f.fires(); got != "2026-03-01T10:03:00Z schedule\n" {
		t.Errorf("after the outage the job ran for %q", got)
	}
	if !regexp.MustCompile(`msg="the ledger records fires again" event=ledger task=tick .*unrecorded=3`).MatchString(f.logs.String()) {
		t.Errorf("the outage's end is not logged:\n%s", f.logs.String())
	}
	if lag := f.d.Lag(); lag.FiresUnrecorded != 3 || lag.LedgerFailing != 0 {
		t.Errorf("after the outage Lag is %+v; want FiresUnrecorded 3, LedgerFailing 0", lag)
	}
}

// TestLedgerOutageEndsWithAScanThatRecords: the outage ends (logged, and
// catchup_daemon_ledger_failing_seconds back to 0) once the ledger records
// again, as a rescan finds writing this boot's sighting, not only at the
// next fire: for a daily task, the gauge grew and the end went unsaid for a
// day after the ledger came back, an alert on it firing all along.
func TestLedgerOutageEndsWithAScanThatRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", slot.Add(-time.Minute))
	f.task.Req.Shared = true // refuse a fire the ledger cannot claim, as on PostgreSQL
	f.d.cfg.Machine.BootID = "boot-1"
	db, err := sql.Open("sqlite", "file:"+f.d.cfg.Machine.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `ALTER TABLE runs RENAME TO runs_away`); err != nil {
		t.Fatal(err)
	}
	*f.now = slot.Add(time.Second)
	f.d.fire(ctx, f.task, slot)
	if lag := f.d.Lag(); lag.LedgerFailing <= 0 {
		t.Fatalf("during the outage Lag is %+v; want LedgerFailing > 0", lag)
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE runs_away RENAME TO runs`); err != nil {
		t.Fatal(err)
	}
	*f.now = slot.Add(30 * time.Second) // a rescan, long before the next fire of the task
	f.d.scan(ctx, f.task, slot, time.Time{})
	if lag := f.d.Lag(); lag.LedgerFailing != 0 || lag.FiresUnrecorded != 1 {
		t.Errorf("after a rescan that recorded, Lag is %+v; want LedgerFailing 0, FiresUnrecorded 1\nlog:\n%s", lag, f.logs.String())
	}
	if !regexp.MustCompile(`msg="the ledger records fires again" event=ledger task=tick .*unrecorded=1`).MatchString(f.logs.String()) {
		t.Errorf("the outage's end is not logged:\n%s", f.logs.String())
	}
}

// fullLedger records nothing of a scan's notes of unrecorded fires (a
// filesystem nearly full: a boot's sighting fits, the notes' runs do not).
type fullLedger struct{ store.Store }

func (l fullLedger) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	if len(runs) == 0 {
		return l.Store.AddRuns(ctx, runs)
	}
	return nil, errors.New("database or disk is full")
}

// TestLedgerOutageGoesOnWhileNotesStay: a rescan that records this boot's
// sighting but not this host's notes of unrecorded fires (a ledger whose
// filesystem is nearly full) does not end the outage: before, it logged
// "the ledger records fires again" beside its warning that the notes
// stay, and the next fire logged the outage's ERROR anew, each minute.
// The scan that records the notes ends it.
func TestLedgerOutageGoesOnWhileNotesStay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", slot.Add(-time.Minute))
	f.d.cfg.Machine.BootID = "boot-1"
	db, err := sql.Open("sqlite", "file:"+f.d.cfg.Machine.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `ALTER TABLE runs RENAME TO runs_away`); err != nil {
		t.Fatal(err)
	}
	*f.now = slot.Add(time.Second)
	f.d.fire(ctx, f.task, slot) // runs unrecorded: a note stays on this host
	if lag := f.d.Lag(); lag.LedgerFailing <= 0 {
		t.Fatalf("during the outage Lag is %+v; want LedgerFailing > 0\nlog:\n%s", lag, f.logs.String())
	}
	if _, err := db.ExecContext(ctx, `ALTER TABLE runs_away RENAME TO runs`); err != nil {
		t.Fatal(err)
	}
	f.d.cfg.Store = fullLedger{f.st}
	*f.now = slot.Add(30 * time.Second)
	f.d.scan(ctx, f.task, slot, time.Time{})
	logs := f.logs.String()
	if !strings.Contains(logs, "database or disk is full") {
		t.Fatalf("the scan did not say the notes stay:\n%s", logs)
	}
	if strings.Contains(logs, "the ledger records fires again") {
		t.Errorf("a scan that could not record the notes ended the outage:\n%s", logs)
	}
	if lag := f.d.Lag(); lag.LedgerFailing <= 0 {
		t.Errorf("after a scan that kept the notes, Lag is %+v; want LedgerFailing > 0", lag)
	}
	f.d.cfg.Store = f.st
	*f.now = slot.Add(40 * time.Second)
	f.d.scan(ctx, f.task, slot, time.Time{})
	if !regexp.MustCompile(`msg="the ledger records fires again" event=ledger task=tick by=scan`).MatchString(f.logs.String()) {
		t.Errorf("the scan that recorded the notes did not end the outage:\n%s", f.logs.String())
	}
	if lag := f.d.Lag(); lag.LedgerFailing != 0 {
		t.Errorf("after the scan that recorded the notes, Lag is %+v; want LedgerFailing 0", lag)
	}
}
