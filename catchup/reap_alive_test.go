package catchup

import (
	"os"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// sharedLedger is a ledger shared by a fleet, for the rules that only
// apply there.
type sharedLedger struct{ store.Store }

func (sharedLedger) Shared() bool { return true }

// TestAliveElsewhere: on a shared ledger, a run of this host whose lock
// this process found free is alive while its process lives and its lease
// runs, but never when its pid is this process's own (an earlier
// incarnation: a container's PID 1 after a restart), once the lease ran out
// (a pid reused), nor on a local ledger, whose locks are the same for every
// user.
func TestAliveElsewhere(t *testing.T) {
	t.Parallel()
	now := mustTime(t, "2026-03-01T10:00:30Z")
	parent := os.Getppid() // alive, and not this process
	tests := map[string]struct {
		shared bool
		pid    int
		beat   time.Time
		want   bool
	}{
		"live process within its lease": {shared: true, pid: parent, beat: now.Add(-10 * time.Second), want: true},
		"this process's own pid":        {shared: true, pid: os.Getpid(), beat: now.Add(-10 * time.Second)},
		"lease ran out":                 {shared: true, pid: parent, beat: now.Add(-2 * time.Minute)},
		"process gone":                  {shared: true, pid: 1 << 22, beat: now.Add(-10 * time.Second)},
		"local ledger":                  {pid: parent, beat: now.Add(-10 * time.Second)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			var s store.Store = st
			if tc.shared {
				s = sharedLedger{st}
			}
			m := testMachine(db, now)
			m.PID, m.Lease = os.Getpid(), time.Minute
			r := store.Run{Host: m.Host, BootID: m.BootID, PID: tc.pid, StartedAt: tc.beat, Heartbeat: tc.beat}
			if got := aliveElsewhere(s, m, r); got != tc.want {
				t.Errorf("aliveElsewhere = %v, want %v", got, tc.want)
			}
		})
	}
}
