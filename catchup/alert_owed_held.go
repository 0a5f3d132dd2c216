package catchup

import (
	"os"
	"sync"
)

// heldOwed is the set of owed alerts (their paths) that a scan of this
// process keeps or pays now. A daemon runs all its scans in one process,
// whose pid stays alive for weeks: an owed alert of its pid that none of
// its scans holds any more (a scan that failed after its expiries, before
// its alert; a payment cut short) is no live scan's, and its next scan
// pays it (owedAlertFiles), where it waited for the daemon's restart.
var heldOwed sync.Map

// holdOwed marks path held by a scan of this process; its release lets it go.
func holdOwed(path string) { heldOwed.Store(path, true) }

// releaseOwed lets path go: paid and removed, or left owed to the next scan.
func releaseOwed(path string) { heldOwed.Delete(path) }

// ownOwedPayable tells whether an owed alert named with pid may be paid by
// this process because it is this process's own and no scan of it holds
// it; own is false for another process's (takerGone decides those).
func ownOwedPayable(pid int, path string) (payable, own bool) {
	if pid != os.Getpid() {
		return false, false
	}
	_, held := heldOwed.Load(path)
	return !held, true
}

// release leaves the owed alert owed, to the next scan (of this process
// too): its scan ends without running it (an error after its expiries).
func (o *owedAlertFile) release() {
	if o != nil {
		releaseOwed(o.path)
	}
}
