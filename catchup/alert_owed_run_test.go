package catchup

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestPayRunAlert: the failure alert a fire left owed (oweRunAlert,
// oweCutRetryAlert) is sent by the next scan exactly when the ledger holds
// the outcome the fire recorded, once; never when the outcome the fire
// was about to record did not commit (the run found dead), when the run
// is another task's, or when the retry it followed was found dead in its
// delay (its reaper alerted it). A run still running leaves it owed.
func TestPayRunAlert(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)
	three, five := 3, 5
	failed := store.Outcome{Status: store.StatusFailed, ExitCode: &three}
	const byFire, byReaper = "stopped by a signal to catchup during its retry delay", "the host rebooted during its retry delay"
	cases := []struct {
		name      string
		task      string         // of the run in the ledger
		outcome   *store.Outcome // recorded; nil: still running
		purged    bool           // the run's record deleted since
		cutBy     string         // the retry's recorded cut ("" none)
		wantAlert string
		wantOwed  bool
	}{
		{name: "recorded", task: "job", outcome: &failed, wantAlert: "job failed 3 2026-03-01T11:00:00Z"},
		{name: "found dead before its outcome", task: "job",
			outcome: &store.Outcome{Status: store.StatusInterrupted, Error: "the host rebooted while it ran"}},
		{name: "another exit code recorded", task: "job", outcome: &store.Outcome{Status: store.StatusFailed, ExitCode: &five}},
		{name: "still running", task: "job", wantOwed: true},
		{name: "run of another task", task: "other", outcome: &failed},
		{name: "purged", task: "job", outcome: &failed, purged: true, wantAlert: "job failed 3 2026-03-01T11:00:00Z"},
		{name: "retry cut by the fire", task: "job", outcome: &failed, cutBy: byFire, wantAlert: "job failed 3 2026-03-01T11:00:00Z"},
		{name: "retry found dead by its reaper", task: "job", outcome: &failed, cutBy: byReaper},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := newOwedFixture(t)
			// The payer is this process, as a scan's is: alive while it
			// pays. (testMachine's pid was 4242, at times a live process's
			// on a busy machine (pids wrap at pid_max, 32768 here): started
			// before the payer renamed the alert to its pid, it made
			// takerGone say the taker lives, and the alert left owed was
			// not listed ("still running" failed).)
			o.m.PID = os.Getpid()
			ctx := context.Background()
			add := func(r store.Run) int64 {
				ids, err := o.st.AddRuns(ctx, []store.Run{r})
				if err != nil {
					t.Fatal(err)
				}
				return ids[0]
			}
			r := store.Run{Task: c.task, Slot: slot, Trigger: store.TriggerSchedule, Attempt: 1, Status: store.StatusRunning,
				StartedAt: o.m.Now(), Host: o.m.Host, PID: deadPID, BootID: o.m.BootID}
			if c.outcome != nil {
				r.Status, r.ExitCode, r.Error, r.EndedAt = c.outcome.Status, c.outcome.ExitCode, c.outcome.Error, o.m.Now()
			}
			r.ID = add(r)
			if c.purged {
				r.ID += 1000
			}
			m := o.m
			m.PID = deadPID
			l := &lifecycle{st: o.st, m: m, req: RunRequest{Task: "job",
				NotifyCmd: `echo "$CATCHUP_TASK $CATCHUP_STATUS $CATCHUP_EXIT_CODE $CATCHUP_SLOT" >> ` + o.alerts}}
			if c.cutBy == "" {
				r.Task = "job"
				l.oweRunAlert(r, failed)
			} else {
				retry := store.Run{Task: "job", Slot: slot, Trigger: store.TriggerRetry, Attempt: 2, Status: store.StatusInterrupted,
					StartedAt: o.m.Now(), EndedAt: o.m.Now(), Host: o.m.Host, PID: deadPID, BootID: o.m.BootID,
					Error: c.cutBy, Reason: store.ReasonRetryCut}
				retry.ID = add(retry)
				l.oweCutRetryAlert(retry, &store.Settlement{ID: r.ID, Outcome: failed}, byFire)
			}
			if l.owedRun == nil {
				t.Fatalf("no alert owed; notices: %q", o.notices)
			}
			releaseOwed(l.owedRun.path) // its fire is gone
			if payOwedAlerts(ctx, o.st, o.m) {
				t.Fatal("payOwedAlerts says it was stopped")
			}
			b, _ := os.ReadFile(o.alerts)
			if got := strings.TrimSpace(string(b)); got != c.wantAlert {
				t.Errorf("alerts sent: %q, want %q; notices: %q", got, c.wantAlert, o.notices)
			}
			if left := owedAlertFiles(o.m); (len(left) == 1) != c.wantOwed || len(left) > 1 {
				t.Errorf("owed alerts left: %q, want owed: %v", left, c.wantOwed)
			}
			// Once: a second payment sends nothing more.
			payOwedAlerts(ctx, o.st, o.m)
			if b2, _ := os.ReadFile(o.alerts); string(b2) != string(b) {
				t.Errorf("a second payment sent %q more", strings.TrimPrefix(string(b2), string(b)))
			}
		})
	}
}
