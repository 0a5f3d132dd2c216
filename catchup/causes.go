package catchup

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/catchup/catchup/store"
)

// Causes of a missed slot, derived from what the ledger knows.
const (
	CauseHostDown     = "host-down"          // no boot of the host covered the slot
	CauseNotFired     = "not-fired"          // a boot covered it, nothing fired it
	CauseClock        = "clock"              // the wall clock was stepped forward over it
	CauseLockBusy     = "lock-busy"          // its fire found the previous run holding the lock
	CauseInterrupted  = "interrupted"        // its run started and died
	CauseUnreachable  = "ledger-unreachable" // its fire could not reach the ledger
	CauseLedgerLocked = "ledger-locked"      // its fire reached the ledger, whose task row another session held past the lock timeout
	CauseLockFile     = "lock-file"          // its fire could not take this host's lock: the ledger was fine
	CauseFailed       = "failed"             // its run failed (missed only with --retry-failed)
	CausePaused       = "paused"             // recorded paused, then given back by resume --replay-paused
	CauseUnknown      = "unknown"            // before the first boot catchup recorded
	CauseWalLost      = "wal-lost"           // in the window of records the ledger lost with its -wal (its mark stands): it may have run
)

// AllCauses lists every cause, in the order metrics show them.
var AllCauses = []string{CauseHostDown, CauseNotFired, CauseClock, CauseLockBusy, CauseInterrupted,
	CauseUnreachable, CauseLedgerLocked, CauseLockFile, CauseFailed, CausePaused, CauseUnknown, CauseWalLost}

// CauseWords says a cause in plain words.
func CauseWords(cause string) string {
	switch cause {
	case CauseHostDown:
		return "the host was down"
	case CauseNotFired:
		return "the host was up but nothing fired it"
	case CauseClock:
		return "the clock was stepped forward over it"
	case CauseLockBusy:
		return "its fire found the previous run still holding the lock"
	case CauseInterrupted:
		return "its run was interrupted"
	case CauseUnreachable:
		return "its fire could not reach the ledger"
	case CauseLedgerLocked:
		return "its fire reached the shared ledger, but another session held the task's row past the lock timeout " +
			"(a transaction left open on it: see pg_stat_activity)"
	case CauseLockFile:
		return "its fire could not take this host's lock for the task (its lock file not to be opened, " +
			"or its lock directory not to be made or trusted): the ledger was fine"
	case CauseFailed:
		return "its run failed"
	case CausePaused:
		return "the task was paused, then catchup resume --replay-paused gave the slot back"
	case CauseWalLost:
		return "it may have run: its record may have been in the ledger's -wal, lost at rest (no scan replays while its mark stands)"
	}
	return "catchup has no record of the host from then"
}

// span is a stretch of wall-clock time, [from, to].
type span struct {
	from, to time.Time
	host, id string
}

func (s span) holds(t time.Time) bool { return !t.Before(s.from) && !t.After(s.to) }

// uptime is what the ledger knows of when hosts were up: the spans their
// boots covered, the gaps a forward clock step made, and when the earliest
// recorded boot started.
type uptime struct {
	up, clock []span
	earliest  time.Time
	starts    map[[2]string]bootStart // (host, boot id) -> when it started
	// hosts are the hosts whose boots count for each slot of a task
	// (forSlot); nil: every boot read counts.
	hosts *hostsOf
}

// bootStart is when a boot started: its boot time, or when catchup first
// saw it if the boot time is unknown.
type bootStart struct {
	at    time.Time
	known bool // at is the boot time
}

// start returns when boot id of host started, as far as catchup knows.
func (u uptime) start(host, id string) (time.Time, bool) {
	s := u.starts[[2]string{host, id}]
	return s.at, s.known
}

// buildUptime turns boot sightings into uptime. current is this host's boot
// as seen now: it extends the latest matching span to now, or starts one.
func buildUptime(boots []store.Boot, current store.Boot) uptime {
	boots = withCurrent(boots, current)
	groups := map[[2]string][]store.Boot{}
	var keys [][2]string
	for _, b := range boots {
		k := [2]string{b.Host, b.ID}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], b)
	}
	u := uptime{starts: map[[2]string]bootStart{}}
	for _, k := range keys {
		g := groups[k]
		sort.SliceStable(g, func(i, j int) bool { return g[i].FirstSeen.Before(g[j].FirstSeen) })
		start := bootStart{at: g[0].FirstSeen}
		if bt := g[0].Time; !bt.IsZero() && !bt.After(start.at) {
			start = bootStart{at: bt, known: true}
		}
		u.starts[k] = start
		if u.earliest.IsZero() || start.at.Before(u.earliest) {
			u.earliest = start.at
		}
		u.up = append(u.up, span{from: start.at, to: g[0].LastSeen, host: k[0], id: k[1]})
		for i := 1; i < len(g); i++ {
			prev, b := g[i-1], g[i]
			if gap := (span{from: prev.LastSeen, to: b.FirstSeen, host: k[0], id: k[1]}); gap.to.After(gap.from) {
				// The same boot on both sides: the host was up throughout,
				// unless the boot time moved forward (a clock step). The
				// step skipped that much of the gap's wall time, where in
				// it nothing says: the gap is the clock's when the step is
				// the larger part of it (each slot in it more likely
				// stepped over than not), else up time, cron up for most
				// of it (an NTP correction of minutes inside a day with no
				// sighting is no reason for the day's misses).
				if step := b.Time.Sub(prev.Time); !prev.Time.IsZero() && !b.Time.IsZero() && step > store.BootStep &&
					2*step >= gap.to.Sub(gap.from) {
					u.clock = append(u.clock, gap)
				} else {
					u.up = append(u.up, gap)
				}
			}
			u.up = append(u.up, span{from: b.FirstSeen, to: b.LastSeen, host: k[0], id: k[1]})
		}
	}
	sort.SliceStable(u.up, func(i, j int) bool { return u.up[i].from.Before(u.up[j].from) })
	return u
}

// withCurrent adds this host's current boot, as seen now, to the sightings.
func withCurrent(boots []store.Boot, cur store.Boot) []store.Boot {
	if cur.Host == "" || cur.ID == "" {
		return boots
	}
	out := append([]store.Boot(nil), boots...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Host == cur.Host && out[i].ID == cur.ID {
			if out[i].SameSpan(cur.ID, cur.Time) {
				if cur.LastSeen.After(out[i].LastSeen) {
					out[i].LastSeen = cur.LastSeen
				}
				return out
			}
			break // the latest span of this boot has another boot time: a step
		}
	}
	return append(out, cur)
}

// covering returns the span of up time that holds t, if any.
func (u uptime) covering(t time.Time) (span, bool) {
	for _, s := range u.up {
		if s.holds(t) {
			return s, true
		}
	}
	return span{}, false
}

// inClockGap returns the clock-step gap that holds t, if any.
func (u uptime) inClockGap(t time.Time) (span, bool) {
	for _, s := range u.clock {
		if s.holds(t) {
			return s, true
		}
	}
	return span{}, false
}

// slotCause says why missed slot was missed, from all its records (the
// runs that name it and the run without a slot that stands for it, by id):
// what scan, ls --missed, metrics and explain all say. A fire without a
// slot that found the lock held is the slot's lock-busy fire.
func slotCause(slot time.Time, sr slotRecords, stale map[int64]bool, u uptime) string {
	return causeOf(slot, sr.all(), stale, u)
}

// causeOf says why slot was missed. records are the runs that name the slot,
// by id; stale holds running records known to be dead. The latest record
// that says something names the cause, except that a slot whose run failed
// stays failed: an attempt after the failure that reached no outcome (a
// retry cut in its delay or while it ran, a replay that found the lock
// busy) leaves the failure its outcome, as explain and the task's status
// tell it.
func causeOf(slot time.Time, records []store.Run, stale map[int64]bool, u uptime) string {
	u = u.forSlot(slot)
	failedBefore := func(i int) bool {
		return slices.ContainsFunc(records[:i], failedAttempt)
	}
	for i := len(records) - 1; i >= 0; i-- {
		r := records[i]
		switch {
		case r.Status == store.StatusInterrupted, r.Status == store.StatusRunning && stale[r.ID]:
			if failedBefore(i) {
				return CauseFailed
			}
			return CauseInterrupted
		case r.Status == store.StatusSkipped && r.ExitCode != nil && *r.ExitCode == exitLocked:
			switch {
			case failedBefore(i):
				return CauseFailed
			case noteCause(r) != "":
				return noteCause(r)
			}
			return CauseLockBusy
		case r.Status == store.StatusFailed, r.Status == store.StatusTimeout:
			return CauseFailed
		case r.Status == store.StatusPaused && r.Reason == store.ReasonReplayPaused:
			return CausePaused // cron fired it; the operator paused it
		}
	}
	if _, ok := u.inClockGap(slot); ok {
		return CauseClock
	}
	if _, ok := u.covering(slot); ok {
		return CauseNotFired
	}
	if u.earliest.IsZero() || slot.Before(u.earliest) {
		return CauseUnknown
	}
	return CauseHostDown
}

// skippedFireCause is why the latest of records skipped with exit 75 was
// skipped: the lock held (lock-busy), or, for a noted fire that did not
// run, the ledger out of reach (ledger-unreachable) or this host's lock
// not to be taken (lock-file); "" when none was.
func skippedFireCause(records []store.Run) string {
	for i := len(records) - 1; i >= 0; i-- {
		r := records[i]
		if r.Status == store.StatusSkipped && r.ExitCode != nil && *r.ExitCode == exitLocked {
			return cmp.Or(noteCause(r), CauseLockBusy)
		}
	}
	return ""
}

// noteCause is the cause a skipped fire recorded late from its note gives
// its slot (noteRun's reason): ledger-unreachable, or lock-file when the
// fire could not take this host's lock; "" for any other record.
func noteCause(r store.Run) string {
	switch r.Reason {
	case store.ReasonUnreachable:
		return CauseUnreachable
	case store.ReasonLedgerLocked:
		return CauseLedgerLocked
	case store.ReasonLockFile:
		return CauseLockFile
	}
	return ""
}
