package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestExplainCauseOnlyWhenItWasMissed: a slot settled by a replay, a
// backfill or a run by hand carries the cause it had been missed for only
// when the records before that run had not settled it: a run again of a
// slot cron ran is not a miss.
func TestExplainCauseOnlyWhenItWasMissed(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 11, 13, 2, 0, 0, 0, time.UTC)
	ok, bad := exitCodePtr(0), exitCodePtr(1)
	tests := map[string]struct {
		retry bool
		runs  []store.Run // records of the slot, oldest first (a zero Slot: a run without a slot)
		want  string      // the cause; "missed" stands for the boots' cause (not-fired, host-down...)
	}{
		"cron succeeded, backfill again": {runs: []store.Run{
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerBackfill}}},
		"cron succeeded, by hand again, failed": {runs: []store.Run{
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok},
			{Slot: slot, Status: store.StatusFailed, ExitCode: bad, Trigger: store.TriggerManual}}},
		"cron failed, backfill succeeded": {runs: []store.Run{
			{Slot: slot, Status: store.StatusFailed, ExitCode: bad},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerBackfill}}},
		"cron failed, replay succeeded, --retry-failed": {retry: true, want: CauseFailed, runs: []store.Run{
			{Slot: slot, Status: store.StatusFailed, ExitCode: bad},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerReplay}}},
		"interrupted, replay succeeded": {want: CauseInterrupted, runs: []store.Run{
			{Slot: slot, Status: store.StatusInterrupted},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerReplay}}},
		"no fire, backfill succeeded": {want: "missed", runs: []store.Run{
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerBackfill}}},
		"expired, backfill succeeded": {want: "missed", runs: []store.Run{
			{Slot: slot, Status: store.StatusExpired, Trigger: store.TriggerReplay},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerBackfill}}},
		"fired without a slot, backfill again": {runs: []store.Run{
			{Status: store.StatusSucceeded, ExitCode: ok},
			{Slot: slot, Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerBackfill}}},
		// cron's fire, recorded without a slot before a scan registered
		// the line, is the slot's run: the slot was never missed.
		"fired without a slot": {runs: []store.Run{
			{Status: store.StatusSucceeded, ExitCode: ok, Trigger: store.TriggerManual}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			reg := mustTime(t, "2026-11-12T02:00:00Z")
			if err := st.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 2 * * *", TZ: "UTC",
				RegisteredAt: reg, SettledThrough: reg}); err != nil {
				t.Fatal(err)
			}
			for i, r := range tc.runs {
				r.Task, r.Attempt, r.Host, r.BootID = "job", 1, "testhost", "boot-1"
				r.StartedAt = slot.Add(time.Second + time.Duration(i)*time.Minute)
				r.EndedAt = r.StartedAt.Add(time.Second)
				if r.Trigger == "" {
					r.Trigger = store.TriggerSchedule
				}
				if _, err := st.AddRun(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			m := testMachine(db, mustTime(t, "2026-11-13T04:00:00Z"))
			x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: slot,
				MissedRule: MissedRule{Tolerance: 5 * time.Minute, RetryFailed: tc.retry}})
			if err != nil {
				t.Fatal(err)
			}
			if x.State != StateSettled {
				t.Fatalf("state %s (%s), want settled", x.State, x.Summary)
			}
			switch {
			case tc.want == "missed" && x.Cause == "":
				t.Errorf("no cause (%s): the slot had been missed", x.Summary)
			case tc.want != "missed" && x.Cause != tc.want:
				t.Errorf("cause %q (%s), want %q", x.Cause, x.Summary, tc.want)
			}
		})
	}
}

// TestExplainExpiringAgreesWithScan: explain names, for every missed slot,
// the reason scan --dry-run gives it for an expiry (the catch-up window,
// --max-replays, the policy latest), and none for a slot it replays.
func TestExplainExpiringAgreesWithScan(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		policy     string
		maxAge     time.Duration
		maxReplays int
		expiring   int // how many of the 30 missed slots scan expires
	}{
		"beyond --max-replays":                      {maxReplays: 10, expiring: 20},
		"older than the window, then --max-replays": {maxAge: 20 * time.Hour, maxReplays: 10, expiring: 20},
		"no bound":        {maxReplays: 100},
		"policy latest":   {policy: "latest", maxReplays: 10, expiring: 29},
		"policy coalesce": {policy: "coalesce", maxReplays: 10},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			reg := mustTime(t, "2026-11-12T00:00:00Z")
			if err := st.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC",
				RegisteredAt: reg, SettledThrough: reg, Replay: tc.policy}); err != nil {
				t.Fatal(err)
			}
			m := testMachine(db, mustTime(t, "2026-11-13T06:30:00Z")) // 30 missed slots
			rule := MissedRule{Tolerance: 5 * time.Minute, MaxAge: tc.maxAge}
			rep, err := Scan(ctx, st, m, ScanRequest{DryRun: true, MissedRule: rule, MaxReplays: tc.maxReplays})
			if err != nil {
				t.Fatal(err)
			}
			expired := map[int64]string{}
			for _, tr := range rep.Tasks {
				if len(tr.Missed) != 30 {
					t.Fatalf("scan --dry-run: %d missed slots, want 30", len(tr.Missed))
				}
				for a := range tr.SlotActions() {
					if a.Action == ActionWouldExpire {
						expired[a.Slot.Unix()] = a.Reason
					}
				}
			}
			if len(expired) != tc.expiring {
				t.Fatalf("scan --dry-run expires %d slots, want %d", len(expired), tc.expiring)
			}
			for slot := reg.Add(time.Hour); slot.Before(m.Now()); slot = slot.Add(time.Hour) {
				x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: slot, MissedRule: rule, MaxReplays: tc.maxReplays})
				if err != nil {
					t.Fatal(err)
				}
				if x.State != StateMissed || x.Expiring != expired[slot.Unix()] {
					t.Errorf("%s: explain says %s, expiring %q; scan --dry-run expires it for %q",
						rfc(slot), x.State, x.Expiring, expired[slot.Unix()])
				}
			}
		})
	}
}
