package catchup

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestMissedSlots(t *testing.T) {
	t.Parallel()
	reg := "2026-11-20T01:00:00Z"
	type run struct {
		slot, started, status, reason string
		exit                          int // recorded exit code; 0 = none
	}
	tests := map[string]struct {
		runs  []run
		now   string
		boot  string
		rule  MissedRule
		stale bool // the running record is known dead
		want  []string
		// expiring is how many of want (the oldest) lie before the
		// catch-up window: scan records them expired.
		expiring int
	}{
		"every day missed after registration": {
			now:  "2026-11-23T09:00:00Z",
			want: []string{"2026-11-20T02:00:00Z", "2026-11-21T02:00:00Z", "2026-11-22T02:00:00Z", "2026-11-23T02:00:00Z"},
		},
		"succeeded and failed runs settle their slot": {
			now: "2026-11-23T09:00:00Z",
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "succeeded"},
				{slot: "2026-11-21T02:00:00Z", status: "failed"}, {slot: "2026-11-22T02:00:00Z", status: "timeout"}},
			want: []string{"2026-11-23T02:00:00Z"},
		},
		"retry-failed makes failed slots missed": {
			now:  "2026-11-22T09:00:00Z",
			rule: MissedRule{RetryFailed: true},
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "succeeded"},
				{slot: "2026-11-21T02:00:00Z", status: "failed"}, {slot: "2026-11-22T02:00:00Z", status: "timeout"}},
			want: []string{"2026-11-21T02:00:00Z", "2026-11-22T02:00:00Z"},
		},
		"interrupted runs leave the slot missed": {
			now:  "2026-11-20T09:00:00Z",
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "interrupted"}},
			want: []string{"2026-11-20T02:00:00Z"},
		},
		"a live running record settles, a dead one does not": {
			now:  "2026-11-20T09:00:00Z",
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "running"}},
			want: nil,
		},
		"a dead running record": {
			now:   "2026-11-20T09:00:00Z",
			stale: true,
			runs:  []run{{slot: "2026-11-20T02:00:00Z", status: "running"}},
			want:  []string{"2026-11-20T02:00:00Z"},
		},
		"policy skip settles, lock skip does not": {
			now: "2026-11-21T09:00:00Z",
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "skipped", reason: "skipped by replay policy \"latest\""},
				{slot: "2026-11-21T02:00:00Z", status: "skipped", reason: reasonLocked, exit: exitLocked}},
			want: []string{"2026-11-21T02:00:00Z"},
		},
		"a skip because another host ran the task leaves the slot missed": {
			now:  "2026-11-20T09:00:00Z",
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "skipped", reason: reasonLocked + " on another host", exit: exitLocked}},
			want: []string{"2026-11-20T02:00:00Z"},
		},
		"slot within tolerance is not missed yet": {
			now:  "2026-11-20T02:03:00Z",
			boot: "2026-11-19T00:00:00Z",
			want: nil,
		},
		"slot within tolerance but before boot is missed": {
			now:  "2026-11-20T02:03:00Z",
			boot: "2026-11-20T02:02:00Z",
			want: []string{"2026-11-20T02:00:00Z"},
		},
		"slots older than max-age are missed, and expiring": {
			now:      "2026-11-23T09:00:00Z",
			rule:     MissedRule{MaxAge: 30 * time.Hour},
			want:     []string{"2026-11-20T02:00:00Z", "2026-11-21T02:00:00Z", "2026-11-22T02:00:00Z", "2026-11-23T02:00:00Z"},
			expiring: 3,
		},
		"an expired record settles its slot": {
			now:  "2026-11-21T09:00:00Z",
			runs: []run{{slot: "2026-11-20T02:00:00Z", status: "expired", reason: "older than the catch-up window (7d)"}},
			want: []string{"2026-11-21T02:00:00Z"},
		},
		"a slotless run just after a tick counts for it": {
			now: "2026-11-21T09:00:00Z",
			runs: []run{{started: "2026-11-20T02:00:40Z", status: "succeeded"},
				{started: "2026-11-21T03:00:00Z", status: "succeeded"}}, // an hour late: manual, not the slot's
			want: []string{"2026-11-21T02:00:00Z"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			tc.rule.Tolerance = 5 * time.Minute
			task := store.Task{Name: "settle", Schedule: "0 2 * * *", TZ: "UTC", RegisteredAt: mustTime(t, reg)}
			if err := st.UpsertTask(ctx, task); err != nil {
				t.Fatal(err)
			}
			var runningID int64
			for _, r := range tc.runs {
				rec := store.Run{Task: "settle", Trigger: "schedule", Status: r.status, Attempt: 1,
					Host: "testhost", BootID: "boot-1", Error: r.reason}
				if r.exit != 0 {
					rec.ExitCode = exitCodePtr(r.exit)
				}
				if r.slot != "" {
					rec.Slot = mustTime(t, r.slot)
					rec.StartedAt = rec.Slot.Add(time.Second)
				} else {
					rec.StartedAt = mustTime(t, r.started)
				}
				id, err := st.AddRun(ctx, rec)
				if err != nil {
					t.Fatal(err)
				}
				if r.status == "running" {
					runningID = id
				}
			}
			m := testMachine(db, mustTime(t, tc.now))
			if tc.boot != "" {
				m.BootTime = mustTime(t, tc.boot)
			}
			stale := map[int64]bool{}
			if tc.stale {
				stale[runningID] = true
			}
			res, err := missedSlots(ctx, st, m, task, mustSchedule(t, "0 2 * * *", "UTC"), tc.rule, stale, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.expiring != tc.expiring {
				t.Errorf("expiring = %d, want %d", res.expiring, tc.expiring)
			}
			if len(res.causes) != len(res.slots) {
				t.Errorf("%d causes for %d missed slots", len(res.causes), len(res.slots))
			}
			var gotS []string
			for _, g := range res.slots {
				gotS = append(gotS, g.Format(time.RFC3339))
			}
			if !reflect.DeepEqual(gotS, tc.want) {
				t.Errorf("missed = %v, want %v", gotS, tc.want)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	slots := func(n int) []time.Time {
		var out []time.Time
		for i := 0; i < n; i++ {
			out = append(out, time.Unix(int64(i)*3600, 0).UTC())
		}
		return out
	}
	tests := map[string]struct {
		missed             int
		policy             string
		max                int
		wantRun, wantSkip  int
		wantFirstRunOffset int // index in missed of the first replayed slot
	}{
		"all under the cap":   {missed: 5, policy: "all", max: 100, wantRun: 5},
		"all over the cap":    {missed: 5, policy: "all", max: 2, wantRun: 2, wantSkip: 3, wantFirstRunOffset: 3},
		"latest":              {missed: 5, policy: "latest", max: 100, wantRun: 1, wantSkip: 4, wantFirstRunOffset: 4},
		"none":                {missed: 5, policy: "none", max: 100},
		"latest with nothing": {missed: 0, policy: "latest", max: 100},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := slots(tc.missed)
			run, skip, _ := plan(m, tc.policy, tc.max)
			if len(run) != tc.wantRun || len(skip) != tc.wantSkip {
				t.Fatalf("replay %d skip %d, want %d and %d", len(run), len(skip), tc.wantRun, tc.wantSkip)
			}
			if len(run) > 0 && !run[0].Equal(m[tc.wantFirstRunOffset]) {
				t.Errorf("first replayed slot %v, want %v (the most recent ones are kept)", run[0], m[tc.wantFirstRunOffset])
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		base time.Duration
		n    int
		want time.Duration
	}{
		"first":           {time.Minute, 1, time.Minute},
		"doubles":         {time.Minute, 3, 4 * time.Minute},
		"capped at 1h":    {time.Minute, 10, time.Hour},
		"zero is no wait": {0, 3, 0},
		"capped from far": {time.Second, 30, time.Hour},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := retryDelay(tc.base, tc.n); got != tc.want {
				t.Errorf("retryDelay(%v, %d) = %v, want %v", tc.base, tc.n, got, tc.want)
			}
		})
	}
}

func TestTimeoutLine(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		timeout time.Duration
		signal  int
		want    string
	}{
		"stopped by SIGTERM": {300 * time.Millisecond, 15,
			"task t timed out after 300ms (--timeout): sent SIGTERM; exit 124"},
		"outlived kill-after": {2 * time.Hour, 9,
			"task t timed out after 2h (--timeout): sent SIGTERM, then SIGKILL (it outlived --kill-after); exit 124"},
		"whole days": {48 * time.Hour, 15,
			"task t timed out after 2d (--timeout): sent SIGTERM; exit 124"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := timeoutLine("t", tc.timeout, tc.signal); got != tc.want {
				t.Errorf("timeoutLine = %q, want %q", got, tc.want)
			}
		})
	}
}
