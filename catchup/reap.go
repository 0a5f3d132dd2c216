package catchup

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
)

// Reasons recorded on interrupted runs.
const (
	reasonRebooted = "the host rebooted while it ran"
	// a retry claimed as its delay began (store.InRetryDelay): it ran
	// nothing, and Interrupt records it cut in its delay (R10)
	reasonRebootedInDelay = "the host rebooted during its retry delay"
	reasonVanished        = "catchup and its command are gone (task lock free)"
	reasonExited          = "catchup exited before recording an outcome" // found by a claim
	reasonNoHeartbeat     = "no heartbeat from "                         // another host's, its lease run out
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
	var cut cutRetries      // alerted once the loop is over: no task lock held then
	defer func() { cut.alert(ctx, st, m) }()
	for _, r := range running {
		if !thisHost(st, m, r) {
			// Another host's run: only its lease can tell (shared ledgers).
			if leaseExpired(st, m, r) {
				stale[r.ID] = true
				if write {
					reason := reasonNoHeartbeat + r.Host + " for longer than the lease"
					done, err := st.Interrupt(ctx, r.ID, deadBy(st, m, r), reason)
					if err != nil {
						return nil, err
					}
					cut.interrupted(r, done, reason)
				}
			}
			continue
		}
		if r.BootID != m.BootID {
			stale[r.ID] = true
			if write {
				why := reasonRebooted
				if store.InRetryDelay(r.Reason) {
					why = reasonRebootedInDelay
				}
				done, err := st.Interrupt(ctx, r.ID, deadBy(st, m, r), why)
				if err != nil {
					return nil, err
				}
				cut.interrupted(r, done, why)
			}
			continue
		}
		dead, err := probeDead(ctx, st, m, r, write, held, &notes, &cut)
		if err != nil {
			return nil, err
		}
		if dead {
			stale[r.ID] = true
		}
	}
	return stale, nil
}

// staleWhy is why a scan takes running record r for dead (findStale) and
// from when, as explain tells it: another host's run by its lease, and
// this host's run of an earlier boot by that boot's end, each at the end
// the scan records (deadBy); this host's of this boot by its process,
// gone now.
func staleWhy(st store.Store, m Machine, r store.Run) (string, time.Time) {
	switch {
	case !thisHost(st, m, r):
		return reasonNoHeartbeat + r.Host + " for longer than the lease", deadBy(st, m, r)
	case r.BootID != m.BootID:
		return "the host rebooted since (its boot " + r.BootID + " is over)", deadBy(st, m, r)
	}
	return processGone, m.Now()
}

// processGone is staleWhy of a run of this host and boot.
const processGone = "its process is gone"

// claimFoundDead is why a claim that found running record r dead records
// it interrupted: this host's catchup exited (the claim holds the task's
// lock); another host's lease ran out, as a scan says (that host may be
// frozen or cut off, its catchup still there, not exited).
func claimFoundDead(st store.Store, m Machine, r store.Run) string {
	if !thisHost(st, m, r) {
		return reasonNoHeartbeat + r.Host + " for longer than the lease"
	}
	return reasonExited
}

// deadBy is the end recorded on running record r found dead: the earliest
// time by which it certainly ended that this process knows, never later
// than now (the store keeps it at or after the run's start). Nothing saw
// it end, so it is a bound (history and show say so), not when a reader
// happened to find it: after a power cut that was hours of downtime in
// its DURATION.
//
//   - A run of another boot of this host ended before this boot began:
//     BootTime, when known and after the run's start (a boot before it: a
//     ledger copied from another machine, a clock stepped; its run may
//     have ended any time until now) and not after now.
//   - Another host's run whose lease ran out: its last heartbeat (else its
//     start) and the lease, the moment the ledger's rule took it for
//     dead. A host cut off from the ledger may have run on past it; its
//     outcome, if it comes, is recorded late over this end.
//   - A run of this boot whose catchup and command are gone: now. On a
//     local ledger it leaves no trace while it runs; on a shared one its
//     heartbeats stop when the ledger is unreachable while it runs on, so
//     the last of them bounds nothing.
func deadBy(st store.Store, m Machine, r store.Run) time.Time {
	now := m.Now()
	switch {
	case !thisHost(st, m, r):
		last := r.Heartbeat
		if last.IsZero() {
			last = r.StartedAt
		}
		if end := last.Add(m.Lease); m.Lease > 0 && end.Before(now) {
			return end
		}
	case r.BootID != m.BootID:
		if b := m.BootTime; !b.IsZero() && b.After(r.StartedAt) && b.Before(now) {
			return b
		}
	}
	return now
}

// EndIsBound reports whether finished run r's end is a bound rather than
// seen (deadBy): a run found dead, marked interrupted by a scan or a
// claim, has no exit code, and ended at the latest then. A retry a signal
// (or its lost lease) cut during its delay recorded its own end; one found
// dead then (Interrupt made it store.ReasonRetryCut) did not.
func EndIsBound(r store.Run) bool {
	if r.Status != store.StatusInterrupted || r.ExitCode != nil || r.EndedAt.IsZero() {
		return false
	}
	return r.Reason != store.ReasonRetryCut || foundDead(r.Error)
}

// foundDead reports whether why is the error of a run marked interrupted
// because it was found dead (a late outcome puts its own before it).
func foundDead(why string) bool {
	for _, p := range []string{notRecordedYet, reasonRebooted, reasonRebootedInDelay, reasonVanished, reasonExited, reasonNoHeartbeat} {
		if strings.HasPrefix(why, p) {
			return true
		}
	}
	return false
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
// write (a retry cut in its delay noted in cut). notes are the host's
// pending notes, read once when needed.
func probeDead(ctx context.Context, st store.Store, m Machine, r store.Run, write bool, held string, notes **pendingNotes, cut *cutRetries) (bool, error) {
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
		if _, noted := (*notes).outcomeOf(r); noted {
			return false, nil
		}
		done, err := st.Interrupt(ctx, r.ID, deadBy(st, m, r), reasonVanished)
		if err != nil {
			return false, err
		}
		cut.interrupted(r, done, reasonVanished)
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

// staleOfTask returns task's running records that cannot be alive, as ls
// reads them (findStale): a run of a boot that is over, or whose catchup
// and command are gone, counts as missed. With write, it marks them
// interrupted, as scan does, before their slots are recorded expired: a
// slot that a run holds running is never recorded expired (AddRuns), and
// a dead run's, left missed, is.
func staleOfTask(ctx context.Context, st store.Store, m Machine, task string, write bool) (map[int64]bool, error) {
	return staleOfTaskHolding(ctx, st, m, task, write, "")
}

// staleOfTaskHolding is staleOfTask for a process that holds the lock of
// task held (staleHolding).
func staleOfTaskHolding(ctx context.Context, st store.Store, m Machine, task string, write bool, held string) (map[int64]bool, error) {
	running, err := st.Running(ctx)
	if err != nil {
		return nil, err
	}
	var mine []store.Run
	for _, r := range running {
		if r.Task == task {
			mine = append(mine, r)
		}
	}
	return staleHolding(ctx, st, m, mine, write, held)
}
