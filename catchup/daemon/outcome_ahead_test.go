package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// heldLedger is a ledger whose outcomes (Finish) and boot sightings
// (SeeBoot) wait, while it is held, as on a ledger whose connections
// other calls all hold; it notes the order in which they went to the
// ledger once let go (the order they returned in is the server's: an
// outcome's commit may take longer than a boot sighting started after it).
type heldLedger struct {
	store.Store
	conns   int // the ledger's connections (store.Connections)
	mu      sync.Mutex
	held    chan struct{} // closed by let; nil: not held
	waiting int           // calls waiting
	outcome bool          // an outcome is among them
	started []string      // the calls, as they went to the ledger (after the hold)
}

func (h *heldLedger) Connections() int { return h.conns }

func (h *heldLedger) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = make(chan struct{})
}

// let lets the calls waiting go (once held).
func (h *heldLedger) let() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held != nil {
		close(h.held)
		h.held = nil
	}
}

// ahead is how many calls named name went to the ledger before the first
// outcome (-1: no outcome went).
func (h *heldLedger) ahead(name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.started {
		switch c {
		case "Finish":
			return n
		case name:
			n++
		}
	}
	return -1
}

func (h *heldLedger) call(name string, f func() error) error {
	h.mu.Lock()
	held := h.held
	if held != nil {
		h.waiting++
		h.outcome = h.outcome || name == "Finish"
	}
	h.mu.Unlock()
	if held != nil {
		<-held
	}
	h.mu.Lock()
	h.started = append(h.started, name)
	h.mu.Unlock()
	return f()
}

func (h *heldLedger) Finish(ctx context.Context, id int64, o store.Outcome) error {
	return h.call("Finish", func() error { return h.Store.Finish(ctx, id, o) })
}

func (h *heldLedger) SeeBoot(ctx context.Context, b store.Boot) error {
	return h.call("SeeBoot", func() error { return h.Store.SeeBoot(ctx, b) })
}

// seen reports, under h.mu, what waits: how many calls, an outcome among them.
func (h *heldLedger) seen() (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.waiting, h.outcome
}

// TestOutcomeGoesAheadOfQueuedCalls: a job ends while the ledger's
// connections are all taken and many calls of other tasks (here boot
// sightings) queue for them. Its outcome goes next: it waits only for
// the calls that hold the ledger, never behind those queued before it.
// That wait is the at-least-once moment (a power cut in it runs the slot
// again at the next start). Before, the outcome queued with the others:
// on SQLite, whose one connection goes to a waiter at random, behind half
// of them on average; on PostgreSQL behind those the pool served first.
func TestOutcomeGoesAheadOfQueuedCalls(t *testing.T) {
	t.Parallel()
	const queued = 60
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			st, db := replicaLedgers[name](t, dir)
			conns := 1 // SQLite's one connection
			if name == "postgres" {
				cfg, err := pgxpool.ParseConfig(db)
				if err != nil {
					t.Fatal(err)
				}
				conns = int(cfg.MaxConns)
			}
			h := &heldLedger{Store: st, conns: conns}
			slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			now := slot.Add(-time.Minute)
			r := newReplica(t, h, db, dir, replicaLockDir(st, dir)("h1"), "h1", &now)
			r.load(t, "* * * * *")
			fifo := filepath.Join(dir, "end")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			r.task.Req.Argv = []string{"/bin/sh", "-c", `read x < end; echo "$CATCHUP_SLOT $CATCHUP_HOST" >> fires.log`}
			now = slot.Add(time.Second)
			fired := make(chan struct{})
			go func() { r.d.fire(ctx, r.task, slot); close(fired) }()
			waitUntil(t, "the job to start", func() bool { return r.d.Lag().Running == 1 }, r)

			h.hold()
			var others sync.WaitGroup
			defer others.Wait()
			defer h.let() // before others.Wait, also when the test fails
			for i := range queued {
				others.Go(func() {
					b := store.Boot{Host: fmt.Sprintf("other%d", i), ID: "b", Time: slot, LastSeen: now}
					if err := r.d.cfg.Store.SeeBoot(ctx, b); err != nil {
						t.Errorf("SeeBoot: %v", err)
					}
				})
			}
			waitUntil(t, fmt.Sprintf("the ledger's %d connections to be taken", conns), func() bool {
				n, _ := h.seen()
				return n >= conns
			}, r)
			end, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			end.WriteString("go\n")
			end.Close()
			waitUntil(t, "the job's outcome to wait for the ledger", func() bool {
				_, outcome := h.seen()
				return outcome || outcomesWaiting(r.d) > 0
			}, r)
			h.let()
			select {
			case <-fired:
			case <-time.After(time.Minute):
				t.Fatalf("the fire did not end within a minute of the ledger let go:\n%s", r.logs.String())
			}
			// The conns calls that held the ledger go first; the outcome
			// takes the first turn one of them gives back. The others'
			// turns, given back while the outcome's goroutine is still on
			// its way to the ledger, may let conns-1 queued calls go just
			// before it (none on SQLite, whose one connection is all its
			// turns; on PostgreSQL, under -race, one did): never more.
			if n, most := h.ahead("SeeBoot"), 2*conns-1; n < 0 || n > most {
				t.Errorf("%d of the %d calls queued before the outcome went to the ledger before it (-1: it never went); "+
					"want at most the %d that held the ledger and the %d whose turns came as the outcome's did", n, queued, conns, conns-1)
			}
			if got := ran(t, dir); got[slot.Format(time.RFC3339)] != 1 {
				t.Errorf("the job ran %v; want its slot once", got)
			}
		})
	}
}

// outcomesWaiting is how many outcomes wait for their turn at d's ledger.
func outcomesWaiting(d *Daemon) int {
	if w, ok := d.cfg.Store.(interface{ outcomesWaiting() int }); ok {
		return w.outcomesWaiting()
	}
	return 0
}
