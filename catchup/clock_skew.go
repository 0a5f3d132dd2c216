package catchup

import (
	"fmt"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
)

// skewLimit is how far this host's clock may be off the shared ledger's
// server's before it says so: a quarter of the lease. A reader takes a
// running run for dead once its heartbeat, written on the runner's clock,
// is older than the lease by the reader's; heartbeats come every lease/6
// (at most 10 s). Two hosts each a quarter off the server in opposite
// directions are half the lease apart: with the heartbeat's interval, two
// thirds of it, leaving a third for a slow write or a loaded host. Nearer
// the lease, live runs are taken for dead and their slots run twice.
func skewLimit(lease time.Duration) time.Duration { return lease / 4 }

// ClockSkew is how far this host's clock (m.Now) is ahead of the shared
// ledger's server's (negative: behind), as st last read it
// (store.ServerNow); false when there is nothing to compare: no shared
// ledger, no server clock read, or a clock pinned (m.ClockPinned), which is
// not read.
func ClockSkew(st store.Store, m Machine) (time.Duration, bool) {
	if st == nil || m.ClockPinned || m.Now == nil || !st.Shared() {
		return 0, false
	}
	server, ok := store.ServerNow(st)
	if !ok {
		return 0, false
	}
	return m.Now().Sub(server), true
}

// ClockWatch says when this host's clock is more than skewLimit off the
// shared ledger's server's: once, and again only after the skew was back
// within half the limit (a skew that hovers at the limit is not said at
// every check). Safe for concurrent use (the daemon's fires).
type ClockWatch struct {
	mu   sync.Mutex
	said bool
}

// Check returns the warning to say now about the skew between m's clock
// and st's server's, or "".
func (w *ClockWatch) Check(st store.Store, m Machine) string {
	if m.Lease <= 0 {
		return ""
	}
	skew, ok := ClockSkew(st, m)
	if !ok {
		return ""
	}
	limit := skewLimit(m.Lease)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch size := skew.Abs(); {
	case size > limit && !w.said:
		w.said = true
		return clockSkewWarning(skew, m.Lease, m.Where)
	case size <= limit/2:
		w.said = false
	}
	return ""
}

// WarnClockSkew says, once for a command (run, scan, backfill), that this
// host's clock is too far off the shared ledger's server's (ClockWatch):
// the server's clock came with the ledger's open.
func WarnClockSkew(st store.Store, m Machine) {
	var w ClockWatch
	if msg := w.Check(st, m); msg != "" {
		m.notice("warning: %s", msg)
	}
}

// clockSkewWarning says that this host's clock is skew ahead of (behind,
// when negative) the server's of the ledger at where, what that does
// under lease, and the fix.
func clockSkewWarning(skew, lease time.Duration, where string) string {
	dir := "ahead of"
	if skew < 0 {
		dir, skew = "behind", -skew
	}
	return fmt.Sprintf("this host's clock is %s %s the ledger server's (PostgreSQL at %s): heartbeats are judged by the hosts' clocks, "+
		"so a skew near --lease %s makes hosts take live runs for dead and run their slots twice; keep every host on NTP",
		FormatDuration(skew.Round(time.Second)), dir, where, FormatDuration(lease))
}
