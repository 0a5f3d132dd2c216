package daemon

import (
	"os"
	"testing"
	"time"
)

// TestFireStartTakesTheHomeItsCheckSaw: a daemon fire checks its line's
// home in full before it claims its slot (homeRefused), then hands the
// home as that check saw it to the job's start (RunRequest.DirSeen), which
// only makes sure it is still that directory (one stat), as a scan's
// replay does. Before, the start checked the whole path again (the request
// read its directory from the ledger with nothing seen): two full checks
// per fire. A refused home gives no request. (A home changed between the
// check and the start is no longer the one seen: the start checks it in
// full again, catchup TestStillSeen.)
func TestFireStartTakesTheHomeItsCheckSaw(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		before func(t *testing.T, home string) // before the check
		wantOK bool
	}{
		"trusted": {before: func(*testing.T, string) {}, wantOK: true},
		"writable by others": {before: func(t *testing.T, home string) {
			if err := os.Chmod(home, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFireFixture(t, "tick", "all", slot.Add(30*time.Second))
			home := homeLine(t, f)
			if err := os.Chmod(home, 0o755); err != nil { // whatever the umask
				t.Fatal(err)
			}
			f.task.Req.DirFromLedger = true
			tc.before(t, home)
			req, ok := f.d.fireRequest(f.task, slot)
			if ok != tc.wantOK {
				t.Fatalf("fireRequest ok = %v, want %v; log:\n%s", ok, tc.wantOK, f.logs.String())
			}
			if !ok {
				return
			}
			fi, err := os.Stat(home)
			if err != nil {
				t.Fatal(err)
			}
			if req.DirSeen == nil || !os.SameFile(req.DirSeen, fi) || req.Dir != home || !req.DirFromLedger || !req.FireSlot.Equal(slot) {
				t.Fatalf("request: dir %q seen %v, from ledger %v, slot %v; want the home %s as the check saw it, for %v",
					req.Dir, req.DirSeen, req.DirFromLedger, req.FireSlot, home, slot)
			}
		})
	}
}
