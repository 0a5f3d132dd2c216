package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// serverClockStore is a ledger whose server's clock reads server (ok:
// read at all), shared or not; nothing else of it is called.
type serverClockStore struct {
	store.Store
	shared bool
	server time.Time
	ok     bool
}

func (s serverClockStore) Shared() bool                 { return s.shared }
func (s serverClockStore) ServerNow() (time.Time, bool) { return s.server, s.ok }

// TestClockSkewWarning: a host whose clock is more than a quarter of the
// lease off the shared ledger's server's is told, in one line naming the
// skew, its direction, the ledger, the lease and the fix; within the
// quarter, with a pinned clock (CATCHUP_NOW), a ledger that is not shared
// or a server clock not read, nothing is said.
func TestClockSkewWarning(t *testing.T) {
	t.Parallel()
	server := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		skew   time.Duration // this host's clock minus the server's
		lease  time.Duration
		pinned bool
		st     serverClockStore
		want   string
	}{
		"ahead by 90s": {skew: 90 * time.Second, lease: time.Minute,
			want: "this host's clock is 1m30s ahead of the ledger server's (PostgreSQL at db.example:5432/catchup): heartbeats are judged by the hosts' clocks, " +
				"so a skew near --lease 1m makes hosts take live runs for dead and run their slots twice; keep every host on NTP"},
		"behind by 90s": {skew: -90 * time.Second, lease: time.Minute,
			want: "this host's clock is 1m30s behind the ledger server's (PostgreSQL at db.example:5432/catchup): heartbeats are judged by the hosts' clocks, " +
				"so a skew near --lease 1m makes hosts take live runs for dead and run their slots twice; keep every host on NTP"},
		"ahead by 16s":             {skew: 16 * time.Second, lease: time.Minute, want: "this host's clock is 16s ahead of"},
		"behind by 15.4s, rounded": {skew: -15400 * time.Millisecond, lease: time.Minute, want: "this host's clock is 15s behind"},
		"ahead by 15s, the limit":  {skew: 15 * time.Second, lease: time.Minute},
		"ahead by 5s":              {skew: 5 * time.Second, lease: time.Minute},
		"90s under a lease of 10m": {skew: 90 * time.Second, lease: 10 * time.Minute},
		"3m under a lease of 10m":  {skew: -3 * time.Minute, lease: 10 * time.Minute, want: "this host's clock is 3m behind the ledger server's (PostgreSQL at db.example:5432/catchup): heartbeats are judged by the hosts' clocks, so a skew near --lease 10m makes"},
		"pinned clock":             {skew: 5 * time.Hour, lease: time.Minute, pinned: true},
		"not shared":               {skew: 5 * time.Hour, lease: time.Minute, st: serverClockStore{shared: false, ok: true}},
		"server clock not read":    {skew: 5 * time.Hour, lease: time.Minute, st: serverClockStore{shared: true}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st := tc.st
			if st == (serverClockStore{}) {
				st = serverClockStore{shared: true, ok: true}
			}
			st.server = server
			read := 0
			m := Machine{Lease: tc.lease, ClockPinned: tc.pinned, Where: "db.example:5432/catchup",
				Now: func() time.Time { read++; return server.Add(tc.skew) }}
			var w ClockWatch
			got := w.Check(st, m)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("said %q, want nothing", got)
			case tc.want != "" && !strings.HasPrefix(got, tc.want):
				t.Errorf("said %q, want it to start %q", got, tc.want)
			case tc.pinned && read > 0:
				t.Errorf("read a pinned clock %d times: reading it starts it (CATCHUP_NOW)", read)
			}
		})
	}
}

// TestClockWatchSaysOnceUntilFine: the daemon checks the skew after each
// fire; it says it once, and again only after it was fine in between
// (within half the limit: a skew that hovers at the limit is not said at
// every fire).
func TestClockWatchSaysOnceUntilFine(t *testing.T) {
	t.Parallel()
	server := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	var skew time.Duration
	m := Machine{Lease: time.Minute, Where: "db", Now: func() time.Time { return server.Add(skew) }}
	st := serverClockStore{shared: true, server: server, ok: true}
	var w ClockWatch
	var said []time.Duration
	for _, s := range []time.Duration{0, 20, 30, 20, 10, 16, 5, -20, -20, 0} {
		skew = s * time.Second
		if w.Check(st, m) != "" {
			said = append(said, s)
		}
	}
	want := []time.Duration{20, -20}
	if len(said) != len(want) || said[0] != want[0] || said[1] != want[1] {
		t.Errorf("said at skews %v (seconds), want %v", said, want)
	}
}
