package catchup

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReadersAgreeOnMissed: for one ledger and one clock, ls (List),
// metrics, scan --dry-run and calendar count the same missed slots (ls and
// calendar with the same causes), and
// the same expiring ones, however long ago the last scan was: a slot the
// next scan records expired is missed until a scan records it, never
// dropped by a reader's look-back.
func TestReadersAgreeOnMissed(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		cron     string
		tz       string // the task's zone; "": UTC
		reg, now string
		maxAge   time.Duration // the rule's --max-age; 0: the task's own (7d)
		retry    bool          // --retry-failed
		runs     []store.Run   // more records of the task "job"
		boots    []store.Boot  // sightings of boots recorded
		missed   int           // what every reader counts
		expiring int           // of them, older than the catch-up window
		// offSchedule: of them, slots of an older schedule owed to it,
		// which scan records expired (schedule-changed) and replays not.
		offSchedule int
	}{
		"monthly, its missed slot two weeks old": {
			cron: "0 3 1 * *", reg: "2026-10-01T03:00:00Z", now: "2026-11-15T04:00:00Z",
			missed: 1, expiring: 1,
		},
		"monthly, its slots missed for a year": {
			cron: "0 3 1 * *", reg: "2025-11-01T03:00:00Z", now: "2026-11-15T04:00:00Z",
			missed: 12, expiring: 12,
		},
		"daily with --max-age 2d, down 19 days": {
			cron: "0 2 * * *", reg: "2026-10-27T02:00:00Z", now: "2026-11-15T04:00:00Z", maxAge: 48 * time.Hour,
			missed: 19, expiring: 17,
		},
		"hourly with --max-age 1d, down 3 days": {
			cron: "0 * * * *", reg: "2026-11-12T00:00:00Z", now: "2026-11-15T04:30:00Z", maxAge: 24 * time.Hour,
			missed: 76, expiring: 52,
		},
		"weekly, down three weeks": {
			cron: "0 5 * * 1", reg: "2026-10-19T05:00:00Z", now: "2026-11-15T04:00:00Z",
			missed: 3, expiring: 2,
		},
		"within the window: nothing expiring": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			missed: 3, expiring: 0,
		},
		"a fire without a slot skipped for the lock leaves its slot missed": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			runs: []store.Run{{Status: store.StatusSkipped, ExitCode: exitCodePtr(exitLocked), Error: reasonLocked,
				StartedAt: time.Date(2026, 11, 13, 2, 0, 30, 0, time.UTC)}},
			missed: 3,
		},
		"a fire without a slot that succeeded settles its slot": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			runs: []store.Run{{Status: store.StatusSucceeded, ExitCode: exitCodePtr(0),
				StartedAt: time.Date(2026, 11, 13, 2, 0, 30, 0, time.UTC)}},
			missed: 2,
		},
		"a dead running record leaves its slot missed": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			runs: []store.Run{{Slot: time.Date(2026, 11, 13, 2, 0, 0, 0, time.UTC), Status: store.StatusRunning,
				StartedAt: time.Date(2026, 11, 13, 2, 0, 1, 0, time.UTC), BootID: "boot-0"}},
			missed: 3,
		},
		"an interrupted fire younger than the tolerance is missed at once": {
			cron: "0 * * * *", reg: "2026-11-15T02:00:00Z", now: "2026-11-15T04:02:00Z",
			runs: []store.Run{
				{Slot: time.Date(2026, 11, 15, 2, 0, 0, 0, time.UTC), Status: store.StatusSucceeded, ExitCode: exitCodePtr(0),
					StartedAt: time.Date(2026, 11, 15, 2, 0, 1, 0, time.UTC)},
				{Slot: time.Date(2026, 11, 15, 3, 0, 0, 0, time.UTC), Status: store.StatusSucceeded, ExitCode: exitCodePtr(0),
					StartedAt: time.Date(2026, 11, 15, 3, 0, 1, 0, time.UTC)},
				{Slot: time.Date(2026, 11, 15, 4, 0, 0, 0, time.UTC), Status: store.StatusInterrupted, ExitCode: exitCodePtr(143),
					StartedAt: time.Date(2026, 11, 15, 4, 0, 1, 0, time.UTC)}},
			missed: 1,
		},
		"a boot covers a slot, then the host is down": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			boots: []store.Boot{{Host: "testhost", ID: "boot-0", Time: time.Date(2026, 11, 12, 1, 0, 0, 0, time.UTC),
				FirstSeen: time.Date(2026, 11, 12, 1, 0, 0, 0, time.UTC), LastSeen: time.Date(2026, 11, 13, 12, 0, 0, 0, time.UTC)}},
			runs: []store.Run{{Slot: time.Date(2026, 11, 15, 2, 0, 0, 0, time.UTC), Status: store.StatusInterrupted,
				StartedAt: time.Date(2026, 11, 15, 2, 0, 1, 0, time.UTC)}},
			missed: 3,
		},
		"a dead run's slot of an older schedule is missed until scan records it expired": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			runs: []store.Run{{Slot: time.Date(2026, 11, 14, 1, 0, 0, 0, time.UTC), Status: store.StatusInterrupted,
				StartedAt: time.Date(2026, 11, 14, 1, 0, 1, 0, time.UTC)}},
			missed: 4, offSchedule: 1,
		},
		"an older schedule's paused slot that resume --replay-paused gave back is missed until scan records it expired": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z",
			runs: []store.Run{{Slot: time.Date(2026, 11, 14, 1, 0, 0, 0, time.UTC), Status: store.StatusPaused,
				Reason: store.ReasonReplayPaused, StartedAt: time.Date(2026, 11, 14, 1, 30, 0, 0, time.UTC)}},
			missed: 4, offSchedule: 1,
		},
		// DST changes in odd zones: each reader counts the slots the
		// schedule has, none twice, none skipped.
		"every half hour across Lord Howe's 30-minute fall back, with --max-age 1d": {
			cron: "*/30 * * * *", tz: "Australia/Lord_Howe", reg: "2026-04-04T00:00:00Z", now: "2026-04-05T12:10:00Z", maxAge: 24 * time.Hour,
			missed: 72, expiring: 24,
		},
		"Santiago at midnight, the night midnight is skipped": {
			cron: "0 0 * * *", tz: "America/Santiago", reg: "2026-09-03T04:00:00Z", now: "2026-09-08T12:00:00Z",
			missed: 5,
		},
		"Chatham at 03:00 across its change at 02:45, with --max-age 2d": {
			cron: "0 3 * * *", tz: "Pacific/Chatham", reg: "2026-09-23T14:15:00Z", now: "2026-09-29T00:00:00Z", maxAge: 48 * time.Hour,
			missed: 5, expiring: 3,
		},
		"Havana at 00:30, which its fall-back night shows twice": {
			cron: "30 0 * * *", tz: "America/Havana", reg: "2026-10-30T04:30:00Z", now: "2026-11-03T12:00:00Z",
			missed: 4,
		},
		"--retry-failed counts a failed slot": {
			cron: "0 2 * * *", reg: "2026-11-12T02:00:00Z", now: "2026-11-15T04:00:00Z", retry: true,
			runs: []store.Run{{Slot: time.Date(2026, 11, 13, 2, 0, 0, 0, time.UTC), Status: store.StatusFailed, ExitCode: exitCodePtr(1),
				StartedAt: time.Date(2026, 11, 13, 2, 0, 1, 0, time.UTC)}},
			missed: 3,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			reg := mustTime(t, tc.reg)
			tz := tc.tz
			if tz == "" {
				tz = "UTC"
			}
			task := store.Task{Name: "job", Schedule: tc.cron, TZ: tz, RegisteredAt: reg, SettledThrough: reg}
			if err := st.UpsertTask(ctx, task); err != nil {
				t.Fatal(err)
			}
			// The registering fire ran its slot; no scan ran since.
			if _, err := st.AddRun(ctx, store.Run{Task: "job", Slot: reg, Trigger: store.TriggerSchedule,
				Status: store.StatusSucceeded, Attempt: 1, StartedAt: reg.Add(time.Second), EndedAt: reg.Add(2 * time.Second),
				ExitCode: exitCodePtr(0), Host: "testhost", BootID: "boot-1"}); err != nil {
				t.Fatal(err)
			}
			addJobRuns(t, st, tc.runs)
			for _, b := range tc.boots {
				if err := st.SeeBoot(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			now := mustTime(t, tc.now)
			m := testMachine(db, now)
			rule := MissedRule{MaxAge: tc.maxAge, Tolerance: 5 * time.Minute, RetryFailed: tc.retry}

			list, err := List(ctx, st, m, ListRequest{Rule: rule})
			if err != nil {
				t.Fatal(err)
			}
			// ls's expiring are the ones scan --dry-run would expire (its
			// --max-replays unbounded): the old schedule's owed slots too.
			if len(list) != 1 || len(list[0].Missed) != tc.missed || list[0].Expiring != tc.expiring+tc.offSchedule {
				t.Errorf("ls: %d missed, %d expiring; want %d and %d", len(list[0].Missed), list[0].Expiring, tc.missed, tc.expiring+tc.offSchedule)
			}
			met, err := Metrics(ctx, st, m, rule)
			if err != nil {
				t.Fatal(err)
			}
			if len(met) != 1 || met[0].Missed != tc.missed {
				t.Errorf("metrics: %d missed, want %d", met[0].Missed, tc.missed)
			}
			rep, err := Scan(ctx, st, m, ScanRequest{DryRun: true, MissedRule: rule, MaxReplays: 100000})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Tasks) != 1 || len(rep.Tasks[0].Missed) != tc.missed || rep.Tasks[0].Expired != tc.expiring+tc.offSchedule {
				t.Errorf("scan --dry-run: %d missed, %d would expire; want %d and %d",
					len(rep.Tasks[0].Missed), rep.Tasks[0].Expired, tc.missed, tc.expiring+tc.offSchedule)
			}
			if !slices.Equal(rep.Tasks[0].Causes, list[0].Causes) {
				t.Errorf("scan --dry-run's causes %q, ls's %q", rep.Tasks[0].Causes, list[0].Causes)
			}
			rows := calendarRows(t, st, m, CalendarRequest{From: reg.Add(-time.Second), To: now, Rule: rule})
			cells := 0
			var causes []string // each missed cell's cause; a failed one's is its F
			for _, c := range rows[0].Slots {
				switch {
				case c.State == CellMissed:
					causes = append(causes, c.Cause)
				case tc.retry && c.State == CellFailed:
					causes = append(causes, CauseFailed)
				default:
					continue
				}
				cells++
			}
			if cells != tc.missed {
				t.Errorf("calendar: %d missed cells, want %d", cells, tc.missed)
			}
			// They tell the same causes: ls's are scan's, metrics' and explain's.
			if !slices.Equal(causes, list[0].Causes) {
				t.Errorf("calendar's causes %q, ls's %q", causes, list[0].Causes)
			}
		})
	}
}

// registerDailyJob registers task "job" (0 2 * * *, UTC) at reg, settled
// through watermark, with the run that succeeded at reg's slot.
func registerDailyJob(t *testing.T, st store.Store, reg, watermark time.Time) {
	t.Helper()
	ctx := context.Background()
	if err := st.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 2 * * *", TZ: "UTC",
		RegisteredAt: reg, SettledThrough: watermark}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddRun(ctx, store.Run{Task: "job", Slot: reg, Trigger: store.TriggerSchedule,
		Status: store.StatusSucceeded, Attempt: 1, StartedAt: reg.Add(time.Second), EndedAt: reg.Add(2 * time.Second),
		ExitCode: exitCodePtr(0), Host: "testhost", BootID: "boot-1"}); err != nil {
		t.Fatal(err)
	}
}

// addJobRuns records runs of task "job" on testhost, attempt 1, with the
// defaults the readers' tests leave out: trigger schedule, boot-1, and an
// end a second after the start unless running.
func addJobRuns(t *testing.T, st store.Store, runs []store.Run) {
	t.Helper()
	for _, r := range runs {
		r.Task, r.Attempt, r.Host = "job", 1, "testhost"
		if r.Trigger == "" {
			r.Trigger = store.TriggerSchedule
		}
		if r.BootID == "" {
			r.BootID = "boot-1"
		}
		if r.Status != store.StatusRunning {
			r.EndedAt = r.StartedAt.Add(time.Second)
		}
		if _, err := st.AddRun(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
}
