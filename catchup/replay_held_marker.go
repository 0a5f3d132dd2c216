package catchup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/catchup/catchup/store"
)

// The held-outcome marker. While one of scan's replays keeps its outcome
// for the task's next claim (heldOutcome), its run is still `running` in
// the ledger, and the task's lock is free between the two replays: to
// anyone else on the host (another scan, a cron fire, ls) that run would
// look dead, and be interrupted and run again. So scan holds a second lock,
// TASK.held beside TASK.lock, with the run's id in it, from the moment it
// keeps the outcome until the outcome is recorded. Its descriptor is
// close-on-exec: no job inherits it (unlike the task's lock, fd 3), so an
// orphaned job never makes a dead run look alive. It dies with scan, and a
// held outcome with it, which is then a run interrupted, as documented.

const heldSuffix = ".held"

// markHeld takes task's marker (opening it into *marker once) and writes
// run id in it; false when it cannot (another process holds it, or the
// file cannot be written): then the outcome is not kept, but recorded at
// once. The caller holds the task's lock, so no one reads the marker
// before the id is in it.
func markHeld(m Machine, marker **taskLock, task string, id int64) bool {
	if *marker == nil {
		l, err := openLockFile(m.LockDir, task, heldSuffix, m.UID)
		if err != nil {
			return false
		}
		*marker = l
	}
	f := (*marker).f
	if ok, err := (*marker).tryLock(); !ok || err != nil {
		return false
	}
	// The id, padded to the marker's fixed width, overwrites the last one
	// in place: no truncate (an ext4 truncate is a journalled metadata
	// change, at every replayed slot).
	if _, err := f.WriteAt(markerText(id), 0); err != nil {
		unmarkHeld(*marker)
		return false
	}
	return true
}

// markerWidth is the marker's length: an int64 and at least one space.
const markerWidth = 20

// markerText is id as the marker holds it, space-padded to markerWidth.
func markerText(id int64) []byte {
	b := make([]byte, markerWidth)
	n := copy(b, strconv.FormatInt(id, 10))
	for i := n; i < len(b); i++ {
		b[i] = ' '
	}
	return b
}

// unmarkHeld releases the marker (it stays open for the task's next one).
func unmarkHeld(marker *taskLock) {
	if marker != nil {
		syscall.Flock(int(marker.f.Fd()), syscall.LOCK_UN)
		marker.locked = false
	}
}

// outcomeHeld reports whether a scan on this host holds r's outcome (r's
// task's marker is locked and names r): r is alive, whatever the task's
// lock says.
func outcomeHeld(m Machine, r store.Run) bool {
	path := filepath.Join(m.LockDir, r.Task+heldSuffix)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	probe := &taskLock{f: f}
	defer probe.close()
	if free, err := probe.tryLock(); err != nil || free {
		return false // (closing f releases the probe's lock)
	}
	b := make([]byte, markerWidth)
	n, _ := f.ReadAt(b, 0)
	id, err := strconv.ParseInt(strings.TrimSpace(string(b[:n])), 10, 64)
	return err == nil && id == r.ID
}
