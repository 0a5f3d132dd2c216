package catchup

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
)

// Reasons recorded on interrupted runs.
const (
	reasonRebooted = "the host rebooted while it ran"
	reasonVanished = "catchup and its command are gone (task lock free)"
)

// findStale returns the running records that cannot be alive: those from
// another boot of this host, and those of this host whose task lock is free
// (their catchup and their command are both gone). Every run of a local
// (SQLite) ledger is this host's, whatever host name it was recorded under:
// the ledger is this host's file, and its task locks sit beside it, so a
// host renamed after a crash (a container recreated with a new hostname)
// still finds its dead runs. On a shared ledger another name is another
// host, and only its lease can tell. With write set, it marks
// them interrupted; a record is only changed while this process holds the
// task's lock, so a run that finishes meanwhile is never overwritten.
func findStale(ctx context.Context, st store.Store, m Machine, write bool) (map[int64]bool, error) {
	running, err := st.Running(ctx)
	if err != nil {
		return nil, err
	}
	return staleAmong(ctx, st, m, running, write)
}

// staleAmong is findStale over running records already read.
func staleAmong(ctx context.Context, st store.Store, m Machine, running []store.Run, write bool) (map[int64]bool, error) {
	return staleHolding(ctx, st, m, running, write, "")
}

// staleHolding is staleAmong for a process that holds the lock of task
// held: a run of that task of this host and boot cannot be holding it, so
// its lock counts as free (this process's own flock of the file, on
// another descriptor, would fail and keep a dead run running), unless it
// is this process's own (a daemon runs many).
func staleHolding(ctx context.Context, st store.Store, m Machine, running []store.Run, write bool, held string) (map[int64]bool, error) {
	stale := map[int64]bool{}
	var notes *pendingNotes // read once a run's lock is found free, after: its note is written before its lock is let go
	for _, r := range running {
		if !thisHost(st, m, r) {
			// Another host's run: only its lease can tell (shared ledgers).
			if leaseExpired(st, m, r) {
				stale[r.ID] = true
				if write {
					reason := "no heartbeat from " + r.Host + " for longer than the lease"
					if _, err := st.Interrupt(ctx, r.ID, m.Now(), reason); err != nil {
						return nil, err
					}
				}
			}
			continue
		}
		if r.BootID != m.BootID {
			stale[r.ID] = true
			if write {
				if _, err := st.Interrupt(ctx, r.ID, m.Now(), reasonRebooted); err != nil {
					return nil, err
				}
			}
			continue
		}
		dead, err := probeDead(ctx, st, m, r, write, held, &notes)
		if err != nil {
			return nil, err
		}
		if dead {
			stale[r.ID] = true
		}
	}
	return stale, nil
}

// probing makes this process's probes of dead runs' locks one at a time:
// a probe holds the task's lock (its own descriptor: flock) while it marks
// the run, and another probe of the same run meanwhile, a daemon's scan of
// another task (findStale reads every task's runs), found the lock held
// and took the dead run for alive. That scan then read the run still
// running, its slot not missed: replayed only at the next rescan (a minute
// later; with --rescan 0, the next start).
var probing sync.Mutex

// probeDead is staleHolding's check of running record r of this host and
// boot: whether it is dead (its task's lock free), marked interrupted when
// write. notes are the host's pending notes, read once when needed.
func probeDead(ctx context.Context, st store.Store, m Machine, r store.Run, write bool, held string, notes **pendingNotes) (bool, error) {
	probing.Lock()
	defer probing.Unlock()
	lock, err := openTaskLock(m.LockDir, r.Task, m.UID)
	if err != nil {
		return false, nil // cannot tell; leave it running
	}
	defer lock.close()
	free := true
	if r.Task != held || r.PID == m.PID {
		free, err = lock.tryLock()
	}
	if err != nil || !free || outcomeHeld(m, r) || aliveElsewhere(st, m, r) {
		return false, nil
	}
	if write {
		// Its outcome noted on the host (the ledger did not take it)
		// after this scan recorded the notes: the next scan records
		// it; taken for dead, its slot would run again.
		if *notes == nil {
			*notes = readPendingNotes(m)
		}
		if _, noted := (*notes).outcomes[r.ID]; noted {
			return false, nil
		}
		if _, err := st.Interrupt(ctx, r.ID, m.Now(), reasonVanished); err != nil {
			return false, err
		}
	}
	return true, nil
}

// aliveElsewhere reports whether a run of this host and boot on a shared
// ledger, whose task lock this process found free, may hold its lock in
// another directory: its process lives and its lease has not run out. A
// shared ledger keeps its locks under the state directory, so a run under
// another user's (or spelled the ledger another way) is out of sight, and
// only its process and its heartbeat can tell. A pid reused after a crash
// keeps a dead run only until its lease runs out. (A scan's held outcome
// is checked apart: outcomeHeld.)
func aliveElsewhere(st store.Store, m Machine, r store.Run) bool {
	if !st.Shared() || r.PID == m.PID || !processAlive(r.PID) {
		return false // this process's own pid: a run of an earlier one (a container's PID 1)
	}
	last := r.Heartbeat
	if last.IsZero() {
		last = r.StartedAt
	}
	return m.Now().Sub(last) <= m.Lease
}

// thisHost reports whether running record r was made on this host: on a
// local ledger every record is; on a shared one, a record under this
// host's name.
func thisHost(st store.Store, m Machine, r store.Run) bool {
	return !st.Shared() || r.Host == m.Host
}

// lowerForStale lowers, in tasks (a dry run's, read without marking its
// dead runs), each task's watermark below the slot of its stale running
// runs, as marking one interrupted lowers it in the ledger
// (store.Store.Interrupt), never below the prune floor: the dry run reads
// what the scan then reads.
func lowerForStale(ctx context.Context, st store.Store, tasks []store.Task, stale map[int64]bool) error {
	if len(stale) == 0 {
		return nil
	}
	running, err := st.Running(ctx)
	if err != nil {
		return err
	}
	for _, r := range running {
		if !stale[r.ID] || r.Slot.IsZero() {
			continue
		}
		for i := range tasks {
			if t := &tasks[i]; t.Name == r.Task && !t.SettledThrough.Before(r.Slot) {
				t.SettledThrough = r.Slot.Add(-time.Second)
				if t.SettledThrough.Before(t.PrunedThrough) {
					t.SettledThrough = t.PrunedThrough
				}
			}
		}
	}
	return nil
}
