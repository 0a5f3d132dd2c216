package catchup

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// LeftBehind is a registration of a `catchup daemon` line that a reload or
// start replaced with another schedule or zone (RegisterDaemonTask's
// replaced), or retired (its line removed): the slots it missed before Cut
// have no fire and no replay to come, but those the new line takes.
type LeftBehind struct {
	Old      store.Task // the registration as it was
	Expr, TZ string     // the line's new schedule and zone; "" when the line was removed
	Path     string     // the crontab the line was removed from
	Cut      time.Time  // when the old line stopped firing: the slots before it are its
	// Taken: after it the new schedule's slots are the new line's (its loop
	// fires them, late if need be; its scans replay them), so an old slot
	// the new schedule has too, after Taken, is not left.
	Taken time.Time
	// Notify is the line's --notify-cmd as written, for the alert; "":
	// the ledger's (never a masked one).
	Notify string
	// givenBack, when set, is the new registration's watermark, gone back
	// below Taken since (RecordLeftBehind).
	givenBack time.Time
}

// recordedCause reports whether a slot missed for cause has a record of
// its own that keeps it missed (a run cut short, failed, lock-skipped),
// which the missed-slot rule judges under any schedule that has the slot.
func recordedCause(cause string) bool {
	switch cause {
	case CauseInterrupted, CauseFailed, CauseLockBusy:
		return true
	}
	return false
}

// RecordLeftBehind records expired (reason schedule-changed, or retired)
// each slot lb.Old missed before lb.Cut that the new line does not take,
// as a fire or scan records those of a crontab line that changed or went
// (expireLeftBehind, retireGone). For a changed line the registration
// (RegisterDaemonTask) has recorded those it left missed already; the
// daemon calls it once nothing of its own may still run them (the old
// line's fires and replays have ended), for the slots that came since: a
// slot never gets an expired record and then a run (a fire or replay that
// finds its slot expired runs nothing). A slot the new schedule has that
// the new registration's watermark went back below since (a run of it cut
// short or failed after the change, given back: giveBackPassed) is the new
// line's to replay, not left. It returns what was
// recorded, for a log ("" when nothing was), and the alert for it, for the
// caller to run off any path that must not wait for it.
func RecordLeftBehind(ctx context.Context, st store.Store, m Machine, lb LeftBehind) (string, func(), error) {
	if lb.Expr == "" {
		// The slots of its pause that nothing recorded: paused, as a scan
		// would have (retireGone), not left with no record at all.
		paused, err := recordEndedPause(ctx, st, m, lb.Old, lb.Cut)
		if err != nil {
			return "", func() {}, err
		}
		why := expiry{reason: fmt.Sprintf(reasonLineGone, lb.Path), code: store.ReasonRetired, lineNotify: true}
		left, err := expireMissed(ctx, st, m, lb.Old, why, lb.Notify, lb.Cut, nil, false)
		desc := left.describe(false, "until its line was removed", store.ReasonRetired)
		if left.refused != nil {
			desc = refusedNote(left.refused) // none recorded, never without a word (notesRefusedAtChange)
		}
		if p := pausedSlots(paused); p != "" {
			desc = strings.TrimPrefix(desc+p, "; ")
		}
		return desc, left.alert, err
	}
	if cur, err := st.Task(ctx, lb.Old.Name); err == nil && cur.RetiredAt.IsZero() && schedule.SameExpr(cur.Schedule, lb.Expr) &&
		schedule.SameZone(cur.TZ, lb.TZ) && cur.SettledThrough.Before(lb.Taken) {
		// The new registration's watermark went below Taken since (a run
		// of a slot both schedules have, cut short or failed after the
		// change, given back: giveBackPassed; one taken for dead): such a
		// slot, which its record keeps missed under the new schedule, is
		// the new line's to replay. A slot with no record stays left: the
		// new schedule, which took effect after it, never counts it.
		lb.givenBack = cur.SettledThrough
	}
	said, alert, err := recordLeftBehind(ctx, st, m, lb)
	if alert == nil {
		return said, func() {}, err
	}
	return said, func() { alert(ctx, m, lb.Notify) }, err
}

// recordLeftBehind is RecordLeftBehind for a line whose schedule or zone
// changed (lb.Expr set); its alert (nil when nothing was recorded) runs
// through the machine and notify command it is given. The records are of
// lb.Old as read, not retired: a task retired or purged since gets none
// (the error wraps store.ErrRetired, store.ErrGone).
func recordLeftBehind(ctx context.Context, st store.Store, m Machine, lb LeftBehind) (string, func(context.Context, Machine, string), error) {
	s, err := parseSchedule(lb.Expr, lb.TZ)
	if err != nil {
		return "", nil, err
	}
	taken := func(slot time.Time, cause string) bool {
		return s.Has(slot) && (slot.After(lb.Taken) || (!lb.givenBack.IsZero() && slot.After(lb.givenBack) && recordedCause(cause)))
	}
	// Of the task as read, live: one retired since (`catchup forget`)
	// gets none of them (store.ErrRetired), as one purged since.
	why := expiry{reason: fmt.Sprintf(reasonLeftByChange, lb.Old.Schedule, lb.Old.TZ, lb.Expr, lb.TZ), code: store.ReasonScheduleChanged,
		live: true, lineNotify: true}
	left, err := expireMissed(ctx, st, m, lb.Old, why, lb.Notify, lb.Cut, taken, false)
	if left.refused != nil {
		return refusedNote(left.refused), nil, err // none recorded, never without a word (notesRefusedAtChange)
	}
	return left.describe(false, "under its old schedule", store.ReasonScheduleChanged), left.alertAs, err
}
