package store

import "time"

// Boot is one sighting span of one boot of a host: what catchup saw of it.
// A boot whose boot time moved (the wall clock was stepped: the kernel's
// btime is the wall clock minus the uptime) gets a new span, so that the
// step stays visible.
type Boot struct {
	Host      string
	ID        string    // the boot id
	Time      time.Time // when the boot started (btime); zero if unknown
	FirstSeen time.Time // the first time catchup saw this span
	LastSeen  time.Time // the last time catchup saw it
}

// BootStep is how far a boot's btime may move between two sightings and
// still be the same span: more than this is a clock step.
const BootStep = time.Minute

// SameSpan reports whether a sighting with boot time t continues span b:
// same boot, and a boot time within BootStep (or unknown on either side).
func (b Boot) SameSpan(id string, t time.Time) bool {
	if b.ID != id {
		return false
	}
	if b.Time.IsZero() || t.IsZero() {
		return true
	}
	d := t.Sub(b.Time)
	return d <= BootStep && d >= -BootStep
}

// ClockReset asks ResetClock to take Now as the right time for Task.
type ClockReset struct {
	Task   string
	Now    time.Time
	Floor  time.Time // where a watermark later than Now goes
	Note   string    // appended to the error of each run detached from its slot
	DryRun bool
}

// ClockResetResult is what ResetClock changed (or, for a dry run, would).
type ClockResetResult struct {
	Detached       []Run     // runs that lost their slot, as they were
	DeletedExpired int64     // expired records decided later than now
	Settled        time.Time // the watermark before, when it was later than now (else zero)
	Registered     time.Time // the registration before, when it was later than now (else zero)
	ScheduleSince  time.Time // when the schedule took effect before, when it was later than now (else zero)
	// PausedAt is when the pause began before, when that was later than
	// now (else zero); PausedFrom is when it begins now: at the watermark,
	// so that it covers every slot not settled. PausedUntil is the end set
	// then, when later than now too: it is dropped (until catchup resume).
	PausedAt, PausedFrom, PausedUntil time.Time
}
