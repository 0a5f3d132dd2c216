package catchup

// A crontab line that a scan registered a moment after one of its slots
// came (the packaged 15-minute scan runs at 02:00:00, the minute cron fires
// a 02:00 line; a boot scan reads a new line as cron starts) is fired by
// cron for that slot a moment later. The fire stands for the slot, as the
// first fire of a schedule does within --tolerance (docs/slots.md, "The
// slot of a fire"): nothing before the scan said the line existed, and
// cron firing it at the slot's minute says it did. Before, the fire found
// the slot before the task's registration and ran as trigger manual, with
// no CATCHUP_SLOT.

import (
	"context"
	"strings"
	"time"
)

// scanRegisteredAfter reports whether tick, a slot of the registered
// schedule before the task's registration, is this fire's all the same:
// the registration is a scan's of a crontab line (not a fire's, which
// registers from the slot it stood for), later than now by no more than a
// fleet's skew (earlyFire: another host's scan, whose clock is a little
// ahead; more is a clock that went back), and tick at most --tolerance
// old, or up to earlyFire ahead (a fire early for it).
func (l *lifecycle) scanRegisteredAfter(tick, now time.Time) bool {
	t := l.registered
	return t != nil && strings.HasPrefix(t.Source, "crontab:") && t.RegisteredAt.Sub(now) <= earlyFire &&
		now.Sub(tick) <= l.req.Tolerance
}

// backdateTo moves the task's registration back to the slot f stands for
// when it lies before it (scanRegisteredAfter), before anything records
// the slot: readers then count the slot as the task's, settled by this
// fire's run, or missed if the run never comes. A ledger fault is left to
// the claim, which meets it too.
func (l *lifecycle) backdateTo(ctx context.Context, f fire) {
	if !f.backdate {
		return
	}
	_, _ = l.st.Backdate(ctx, l.req.Task, f.slot)
}
