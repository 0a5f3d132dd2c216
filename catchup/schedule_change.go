package catchup

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// reasonLeftByChange is why a slot missed under a task's old schedule is
// recorded expired when the schedule changes (old, then new, each with its
// zone): the new one has no such slot, and no scan replays it.
const reasonLeftByChange = "its schedule changed from %q in %s to %q in %s before it ran: no scan replays it"

// leftByChange is what a schedule change leaves behind: the slots of the
// old schedule that ls showed missed at the change, oldest first, and
// since, where the gap they leave opens (just after the old slot before
// the first, never before the task's registration).
type leftByChange struct {
	slots  []time.Time
	causes []string // why each of slots was missed, in step
	since  time.Time
	// alert runs the task's missed-slot alert for the slots recorded (a
	// no-op when none was): the caller runs it when it may wait for it.
	alert func()
	// alertAs is alert through another machine, context and notify
	// command (nil when none was recorded).
	alertAs func(ctx context.Context, m Machine, notify string)
	// ahead, when set, is a time of the task the ledger holds later than
	// now (at now): its missed slots are not known, none is recorded.
	ahead, now time.Time
	// refused, when set, is why this host's notes of unrecorded fires
	// could not be read or trusted: none is recorded (notesRefusedAtChange).
	refused error
	// report is the slots recorded expired (in a dry run, that would be)
	// as a scan reports them, for the scan's report (countLeft); nil: none.
	report *TaskScan
}

// aheadNote says that the task's missed slots are not known, the ledger
// holding a time of it later than now; "" when they are.
func (lb leftByChange) aheadNote() string {
	if lb.refused != nil {
		return refusedNote(lb.refused)
	}
	if lb.ahead.IsZero() {
		return ""
	}
	return fmt.Sprintf("the ledger holds %s, later than now (%s): its missed slots are not known, and none is recorded expired",
		rfc(lb.ahead), rfc(lb.now))
}

// describe says what became of the slots left behind, for a notice (""
// when none): missed where ("under the old one"), recorded expired with
// reason code, or (dry) what would be.
func (lb leftByChange) describe(dry bool, where, code string) string {
	n := len(lb.slots)
	if n == 0 {
		return ""
	}
	what, verb := fmt.Sprintf("%d slots missed %s (%s to %s)", n, where, rfc(lb.slots[0]), rfc(lb.slots[n-1])), "are"
	if n == 1 {
		what, verb = fmt.Sprintf("1 slot missed %s (%s)", where, rfc(lb.slots[0])), "is"
	}
	if dry {
		verb = "would be"
	}
	return fmt.Sprintf("%s %s recorded expired (%s)", what, verb, code)
}

// lineNotice says, for the notice of a crontab line's change,
// what became of the slots the change left behind.
func (lb leftByChange) lineNotice(dry bool) string {
	if note := lb.aheadNote(); note != "" {
		return note
	}
	if len(lb.slots) == 0 {
		return "slots missed before now are not looked for"
	}
	return lb.describe(dry, "under the old one", store.ReasonScheduleChanged)
}

// expireLeftBehind deals with the slots a change of task old's schedule to
// expr in tz leaves behind: each slot of the old schedule that ls shows
// missed now (its paused ones aside: recordEndedPause records those) is
// recorded expired, reason schedule-changed, in one transaction, and the
// returned alert runs the task's missed-slot alert for them (notify, else
// the task's own), as for the slots scan gives up. Without a record they
// would vanish from every reader, the new watermark passing them, with
// only the change's notice (guarantees S8). A non-zero cut (a fire's: its
// own slot; scan's, leftAt(now)) takes every old slot before it, however
// recent: the line no longer fires the old schedule (cron reads its
// crontab again before it fires), so none is on its way, and the
// tolerance, which waits for a fire on its way, would drop a recent one
// without a word (a fire waiting for the task's lock with --wait is on its
// way, and then runs its slot, which its record settles). Those spare
// reports true for are left too: scan spares an old slot the new schedule
// has, younger than the tolerance (mayStillFire), which the edited line
// fires, late, or whose fire registers the change. dry records nothing and alerts nothing.
// A slot another process recorded expired meanwhile is not recorded nor
// alerted again. The slots are returned also when recording them failed.
// The task was read not retired: one retired since (`catchup forget`)
// gets none of them (store.ErrRetired), as one purged since (ErrGone).
// The notes after reports true for are the new schedule's (an edited
// line's fires, editedLineFires): no slot of the old one is theirs.
func expireLeftBehind(ctx context.Context, st store.Store, m Machine, old store.Task, expr, tz, notify string,
	cut time.Time, spare func(slot time.Time, cause string) bool, after func(spoolEntry) bool, dry bool) (leftByChange, error) {
	reason := fmt.Sprintf(reasonLeftByChange, old.Schedule, old.TZ, expr, tz)
	why := expiry{reason: reason, code: store.ReasonScheduleChanged, live: true, notesAfter: after}
	return expireMissed(ctx, st, m, old, why, notify, cut, spare, dry)
}

// leftToTheLine names the old schedule's slots a change left to the new
// line's fire (lineMayStillFire, leftToTheLoop), and who replays one whose
// fire never comes, and when (who, when: "a scan", " once --tolerance has
// passed"; "the next start", ""); "" when none.
func leftToTheLine(slots []time.Time, who, when string) string {
	switch n := len(slots); n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; slot %s, which the new one has too, is left to its fire "+
			"(should none come, %s replays it%s)", rfc(slots[0]), who, when)
	default:
		return fmt.Sprintf("; %d slots the new one has too (%s to %s) are left to its fires "+
			"(should none come, %s replays them%s)", n, rfc(slots[0]), rfc(slots[n-1]), who, when)
	}
}

// lineMayStillFire is mayStillFire for a crontab line edited from schedule
// old to s: a slot is left to the line's fire only when every slot s has
// after it, up to now, old has too. The new schedule counts from the
// oldest slot left (countsFrom), so that a slot whose fire never comes is
// missed once tol has passed, and replayed, never dropped unrecorded; and
// it owes no slot of its own from before the change.
func lineMayStillFire(s, old *schedule.Schedule, now time.Time, tol time.Duration, spared *[]time.Time) func(time.Time, string) bool {
	may := mayStillFire(s, now, tol, nil)
	return func(slot time.Time, cause string) bool {
		if s == nil || old == nil || !may(slot, cause) {
			return false
		}
		both := true
		s.Slots(slot, now, func(n time.Time) bool {
			both = old.Has(n)
			return both
		})
		if both && spared != nil {
			*spared = append(*spared, slot)
		}
		return both
	}
}

// countsFrom is the watermark an edited line's new schedule starts from:
// now, or just before the oldest slot the change left to the line's fire
// (spared, oldest first), which stays above it until a fire or a replay
// settles it.
func countsFrom(now time.Time, spared []time.Time) time.Time {
	if len(spared) == 0 {
		return now
	}
	return spared[0].Add(-time.Second)
}

// mayStillFire reports the missed slots that a line may still fire, late
// as cron may be, so that they are not recorded expired: those nothing
// fired yet (cause not-fired: a slot whose fire came and died, or that
// passed while the host was down, gets no other) younger than tol at now,
// of s, the line's schedule (nil: any); each added to spared when given.
func mayStillFire(s *schedule.Schedule, now time.Time, tol time.Duration, spared *[]time.Time) func(time.Time, string) bool {
	return func(slot time.Time, cause string) bool {
		if cause != CauseNotFired || !slot.After(now.Add(-tol)) || (s != nil && !s.Has(slot)) {
			return false
		}
		if spared != nil {
			*spared = append(*spared, slot)
		}
		return true
	}
}

// expireMissed records each slot of task old's registered schedule that ls
// shows missed now (its paused ones aside; with a cut, every unsettled
// slot before it; those spare reports true for aside too) expired, why
// (its reason and code), in one transaction, as expireLeftBehind says.
// The records are of old as read: a task purged since (or purged and
// registered again) gets none, and the error wraps store.ErrGone; with
// why.live (a schedule change's, of a task read not retired), one retired
// since gets none either, and the error wraps store.ErrRetired.
func expireMissed(ctx context.Context, st store.Store, m Machine, old store.Task, why expiry, notify string,
	cut time.Time, spare func(slot time.Time, cause string) bool, dry bool) (leftByChange, error) {
	lb := leftByChange{alert: func() {}}
	s, err := storedSchedule(m, nil, old)
	if err != nil || s == nil {
		return lb, nil // no slots to leave: scan passes such a task by too
	}
	latest, err := st.LatestSlot(ctx, old.Name)
	if err != nil {
		return lb, err
	}
	if ahead := aheadOf(old, latest, m.Now()); !ahead.IsZero() {
		// The ledger holds a time of the task later than now: its missed
		// slots are not computed (ls, scan), so none is recorded.
		lb.ahead, lb.now = ahead, m.Now()
		return lb, nil
	}
	stale, err := staleOfTask(ctx, st, m, old.Name, !dry)
	if err != nil {
		return lb, err
	}
	rule := MissedRule{Tolerance: DefaultTolerance}
	if !cut.IsZero() {
		rule.Tolerance = 0
	}
	// A slot a fire noted on this host stands for is that fire's, not
	// missed: never recorded expired beside its note (notesBeforeChange).
	notes := unrecordedNotes(m).without(why.notesAfter)
	if notes.refused != nil {
		lb.refused = notes.refused // none known missed, none recorded (notesRefusedAtChange)
		return lb, nil
	}
	res, err := missedSlots(ctx, st, m, old, s, rule, stale, nil, notes)
	if err != nil {
		return lb, err
	}
	splitPaused(old, &res)
	if !cut.IsZero() {
		n := len(res.slots)
		for n > 0 && !res.slots[n-1].Before(cut) {
			n--
		}
		res.slots, res.causes = res.slots[:n], res.causes[:n]
	}
	if spare != nil {
		var slots []time.Time
		var causes []string
		for i, slot := range res.slots {
			if !spare(slot, res.causes[i]) {
				slots, causes = append(slots, slot), append(causes, res.causes[i])
			}
		}
		res.slots, res.causes = slots, causes
	}
	// A killed coalesced replay's gap goes with its slot (withDeadFolds).
	if res.slots, res.causes, err = withDeadFolds(ctx, st, m, old, s, res.slots, res.causes, dry); err != nil {
		return lb, err
	}
	if len(res.slots) == 0 {
		return lb, nil
	}
	lb.slots, lb.causes, lb.since = res.slots, res.causes, res.slots[0]
	if prev, ok := s.Prev(lb.since.Add(-time.Second)); ok && !prev.Before(old.RegisteredAt) {
		lb.since = prev.Add(time.Second)
	}
	ex := []expirySpan{{slots: res.slots, causes: res.causes, reason: why.reason, code: why.code}}
	ts := TaskScan{Task: old.Name, Policy: cmp.Or(old.Replay, "all")}
	cmd := alertCommand(m, notify, old)
	if why.unalerted {
		cmd = "" // none owed: the next scan would send what its caller never meant to
	}
	at := old // where its alert runs (taskAlertDir)
	if !why.lineNotify {
		at = givenAlertAt(old, notify) // the scan's or fire's own, given there: where it runs
	}
	owed := oweAlert(m, cmd, old, at, ts.Policy, ex, dry) // paid once alerted (alertAs), else by the next scan
	if err := ts.expire(ctx, st, m, old, store.Of{Registered: old.RegisteredAt, Live: why.live}, ex, dry); err != nil || dry {
		owed.release() // not alerted: owed to the next scan, of this process too (a daemon's)
		if err == nil {
			lb.report = &ts
		}
		return lb, err
	}
	lb.report = &ts
	lb.slots, lb.causes = nil, nil // those recorded: not those another process recorded meanwhile
	for a := range ts.SlotActions() {
		if a.Action == ActionExpired {
			lb.slots, lb.causes = append(lb.slots, a.Slot), append(lb.causes, a.Cause)
		}
	}
	lb.alertAs = func(ctx context.Context, am Machine, notify string) {
		owed.paidUnlessStopped(ctx, m, old.Name, alertExpired(ctx, am, notify, at, ts))
	}
	lb.alert = func() {
		owed.paidUnlessStopped(ctx, m, old.Name, alertExpired(ctx, m, notify, at, ts))
	}
	return lb, nil
}

// leftAt is the cut that leaves every slot at or before now behind: a
// line that changed or went, or a task forgotten, fires none of them any
// more, however recent.
func leftAt(now time.Time) time.Time { return now.Add(time.Nanosecond) }
