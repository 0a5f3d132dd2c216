package catchup

// A daemon's fire whose line differs from the task's registration: on a
// fleet's shared ledger (or two daemons of one host), another replica
// registered another version of the line, during a rolling crontab edit
// (docs/distributed.md).

import (
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// DaemonLine is the line a daemon fires, as it registers it
// (RegisterDaemonTask's t and zoneFromHost). Differs, if set, is told
// how the line differs from the registration the fire read, before the
// fire registers anything or runs its job (with none: a LineDiffers
// whose Warning is "").
type DaemonLine struct {
	Def          store.Task
	ZoneFromHost bool
	Differs      func(LineDiffers)
	// Loaded, if set, reports whether Def is still the line the daemon
	// runs (false: a reload replaced the loop this fire is of, and the
	// fire registers nothing, says nothing: its claim decides, as before).
	Loaded func() bool
}

// LineDiffers is how a daemon's line differs from the registration its
// fire read: Warning is "" when it does not. Key tells one difference
// from another, for the daemon to warn once per change; Registered says
// that the fire registers its line, itself a change.
type LineDiffers struct {
	Warning    string
	Key        string
	Registered bool
}

// daemonLineDiffers deals with the daemon's fire of a line whose schedule
// or zone is not the registration's (another replica registered its own
// version of the line), by the rule of a crontab line's fire (relearnLine)
// and of a `run --cron` fire: the last registration wins.
//   - The fire's slot is no slot of the registration: the fire registers
//     its line, as the daemon's start or reload would (the old schedule's
//     missed slots recorded expired, the new one counting from just before
//     this slot), and stands for that slot of it. Run under the other
//     replica's registration, it was a run of no slot ("not a slot of"),
//     without a word.
//   - It is one: the fire stands for it, registering nothing (as a crontab
//     line's fire on its registered schedule), and the daemon warns that
//     its line differs, once per change (Key).
//
// A line whose zone is only its host's (no --tz, no CRON_TZ) keeps the
// zone registered on a shared ledger (fleetZoneOf): that is no difference,
// but the fire of a slot that zone does not have (another replica's line
// named another zone since this daemon read the registration) runs
// nothing (notASlot), said once per change: the daemon's next start or
// reload reads the slots in that zone.
func (l *lifecycle) daemonLineDiffers(ctx context.Context) {
	line, slot := l.req.DaemonLine, l.req.FireSlot
	if line == nil || slot.IsZero() || l.registered == nil || l.sched == nil || (line.Loaded != nil && !line.Loaded()) {
		return
	}
	say := func(d LineDiffers) {
		if line.Differs != nil {
			line.Differs(d)
		}
	}
	reg := *l.registered
	def := line.Def
	same := schedule.SameExpr(reg.Schedule, def.Schedule) &&
		(schedule.SameZone(reg.TZ, def.TZ) || (line.ZoneFromHost && l.st.Shared()))
	if same && l.sched.Has(slot) {
		say(LineDiffers{})
		return
	}
	host, pid := daemonRegistrant(reg.Source)
	if host == l.m.Host && pid == l.m.PID {
		// This daemon's own registration: a reload replaced the line this
		// fire is of (its loop ends); its claim decides, as before.
		return
	}
	by := "a catchup daemon"
	if host != "" {
		by += fmt.Sprintf(" on host %s (pid %d", host, pid)
		if src := daemonLine(reg); src != "" {
			by += ", line " + src
		}
		by += ")"
	}
	head := fmt.Sprintf("task %s is registered as %q in %s by %s; this daemon's line is %q in %s",
		reg.Name, reg.Schedule, reg.TZ, by, def.Schedule, def.TZ)
	key := fmt.Sprint(reg.Schedule, "\x00", reg.TZ, "\x00", reg.Source, "\x00", def.Schedule, "\x00", def.TZ)
	if same {
		say(LineDiffers{Key: key, Warning: fmt.Sprintf("%s, naming no zone: the fleet reads it in the registered zone, "+
			"which has no slot %s: its fires at such times run nothing, until its next start or reload reads its slots "+
			"in %s", head, rfc(slot), reg.TZ)})
		l.notASlot = true
		return
	}
	if l.sched.Has(slot) {
		say(LineDiffers{Key: key,
			Warning: head + ": its fires that are slots of the registration run as those slots, the registration's other slots " +
				"are left to the daemon whose line it is and to the replays; this daemon registers its line again at its next " +
				"start or reload, or at a fire that is no slot of the registration (the last registration wins)"})
		return
	}
	say(LineDiffers{Registered: true, Warning: fmt.Sprintf("%s: its fire of slot %s is no slot of the registration; "+
		"it registers its line and stands for that slot of it (the last registration wins)", head, formatSlot(slot, l.sched))})
	_, replaced, err := registerDaemonTask(ctx, l.st, l.m, def, line.ZoneFromHost, slot.Add(-time.Second), slot)
	if err != nil {
		l.refused = fmt.Errorf("task %s: its fire of slot %s is no slot of its registered schedule %q in %s, "+
			"and registering its line failed: not run: %w", reg.Name, rfc(slot), reg.Schedule, reg.TZ, err)
		return
	}
	notify := l.req.NotifyCmd
	l.leftAlert = func() { replaced.Alert(context.WithoutCancel(ctx), l.m, notify) } // once the fire is over
	l.registered, l.sched, l.revive = nil, nil, nil
	if err := l.loadRegistered(ctx); err != nil {
		l.refused = fmt.Errorf("task %s: read its registration again: %w", reg.Name, err)
		return
	}
	if l.registered != nil && (l.sched == nil || !l.sched.Has(slot)) {
		// Registered so (its zone the fleet's), it still has no such slot.
		l.m.notice("task %s: %s is no slot of its registered schedule %q in %s: not run",
			reg.Name, rfc(slot), l.registered.Schedule, l.registered.TZ)
		l.notASlot = true
	}
}
