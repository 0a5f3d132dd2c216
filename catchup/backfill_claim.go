package catchup

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/store"
)

// reasonRanSince begins the reason of a claim takenSince gave back; a slot
// recorded expired since (forget, a schedule change: nothing ran) begins
// with reasonExpiredSince.
const (
	reasonRanSince     = "slot ran since "
	reasonExpiredSince = "slot recorded expired since "
)

// gaveBackSince reports whether reason is that of a claim takenSince gave
// back.
func gaveBackSince(reason string) bool {
	return strings.HasPrefix(reason, reasonRanSince) || strings.HasPrefix(reason, reasonExpiredSince)
}

// takenSince gives back a backfill's claim of a slot that another process
// ran since the backfill began (another host's backfill of the same range,
// or a fire), and a scan's replay's claim of a slot that another process
// ran since the scan read the task (a second scan at once): the claim
// refuses only running, succeeded and expired holders, and a run that
// failed meanwhile must not run a second time (the slot stays failed:
// RunResult.failedMeanwhile). The claimed run is recorded skipped with
// exit 0, which settles nothing. A run interrupted since ran to no outcome
// (cut, or taken for dead, maybe before its job started): its slot is
// still missed, and this claim runs it. A replay's slot that had no run
// before the claim (touched false) is not read again: the usual path.
func (l *lifecycle) takenSince(ctx context.Context, r store.Run, touched bool) (RunResult, bool) {
	if !(l.req.Backfill || l.req.ReadRuns && touched) || r.Attempt != 1 {
		return RunResult{}, false
	}
	since := "this backfill began"
	if !l.req.Backfill {
		since = "this scan read the task"
	}
	runs, err := l.st.SlotRuns(ctx, r.Task, r.Slot, r.Slot, 0)
	if err != nil {
		return RunResult{}, false // the claim decides
	}
	for _, o := range runs {
		if o.ID == r.ID || !o.Slot.Equal(r.Slot) || o.Status == store.StatusSkipped || o.Status == store.StatusInterrupted ||
			o.ID <= l.req.AfterRun {
			continue
		}
		reason, again := fmt.Sprintf(reasonRanSince+"%s (run %d on %s, %s)", since, o.ID, o.Host, o.Status), " again"
		if o.Status == store.StatusExpired { // given up meanwhile (forget, a schedule change): nothing ran
			reason, again = fmt.Sprintf(reasonExpiredSince+"%s (run %d on %s, reason %s): nothing ran", since, o.ID, o.Host, o.Reason), ""
		}
		l.recordOrSay(ctx, r.ID, store.Outcome{Status: store.StatusSkipped, EndedAt: l.m.Now(), ExitCode: exitCodePtr(0), Error: reason})
		l.m.notice("slot %s of %s: %s; not running it%s", formatSlot(r.Slot, l.sched), r.Task, reason, again)
		r.Status, r.Error = store.StatusSkipped, reason // the report says it, not "done elsewhere: skipped"
		return RunResult{Run: r, Skipped: true, failedMeanwhile: failedStatus(o.Status)}, true
	}
	return RunResult{}, false
}

// failedStatus reports whether a run of status s failed: it ran, and its
// slot stays failed until a retry (scan --retry-failed).
func failedStatus(s string) bool {
	return s == store.StatusFailed || s == store.StatusTimeout
}

// EnvBackfillSaid tells a crontab line's catchup run of a backfill's slot
// the runs holding a slot (comma-separated ids) that the backfill's earlier
// tries named already: each try is a new process, and each would say
// "claimed by HOST" of the same run again.
const EnvBackfillSaid = "CATCHUP_BACKFILL_SAID"

// saidEnv is EnvBackfillSaid for the runs of said, "" for none.
func saidEnv(said map[int64]bool) string {
	if len(said) == 0 {
		return ""
	}
	ids := make([]string, 0, len(said))
	for id := range said {
		ids = append(ids, strconv.FormatInt(id, 10))
	}
	slices.Sort(ids)
	return EnvBackfillSaid + "=" + strings.Join(ids, ",")
}

// backfillEnv is what a crontab line's `catchup run` needs to run a slot as
// backfill's: the trigger, the last run before the backfill, and --only all.
func backfillEnv(afterRun int64, force bool) []string {
	env := []string{"CATCHUP_BACKFILL_AFTER=" + strconv.FormatInt(afterRun, 10)}
	if force {
		env = append(env, "CATCHUP_BACKFILL_FORCE=1")
	}
	return env
}

// backfillShell runs one slot through the task's crontab line and judges
// it by the ledger, as scan does (readBack): the line's `catchup run` exits
// 0 when it finds the slot held by a running run, or settled meanwhile, as
// when it ran it. A slot held by a running run is busy (backfill tries it
// again after the others, as it waits for an argv task's lock); one the
// line ran no run of is skipped, with the reason.
func backfillShell(ctx context.Context, st store.Store, m Machine, t store.Task, sr *shellReplay,
	slot time.Time, env []string) (SlotAction, error) {
	a, err := replayLine(ctx, st, m, t, sr, slot, replaySpan{}, env, "backfill it again")
	if err == nil && a.held && !a.running {
		a.gone = goneSince(ctx, st, t) // the line ran nothing: its claim may have found the task purged
	}
	if err == nil && !a.gone && !a.running && !a.ran && a.Action == ActionSkipped {
		a.retired = retiredSince(ctx, st, t) // or retired, its slot maybe recorded expired by the retirement
	}
	if a.running {
		a.ExitCode = exitLocked // tried again after the others
	}
	return a, err
}
