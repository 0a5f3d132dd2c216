package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestFireRule drives Run through the rule of a fire (docs/slots.md, "The
// slot of a fire"): earlier fires, then the fire under test, then what it
// stood for, whether it ran, and what it recorded.
func TestFireRule(t *testing.T) {
	t.Parallel()
	type fire struct {
		at     string
		argv   []string
		manual bool
	}
	ok, fail := []string{"true"}, []string{"false"}
	tests := map[string]struct {
		before      []fire
		fire        fire
		wantTrigger string
		wantSlot    string // "" for none
		wantRan     bool
		wantRecords int // records of the task after the fire
	}{
		"first fire on time": {
			fire: fire{at: "2026-03-02T02:00:30Z"}, wantTrigger: store.TriggerSchedule, wantSlot: "2026-03-02T02:00:00Z", wantRan: true, wantRecords: 1},
		"first fire later than the tolerance": {
			fire: fire{at: "2026-03-02T02:10:00Z"}, wantTrigger: store.TriggerManual, wantRan: true, wantRecords: 1},
		"late fire of a registered task": {
			before: []fire{{at: "2026-03-02T02:00:05Z"}}, fire: fire{at: "2026-03-03T09:00:00Z"},
			wantTrigger: store.TriggerSchedule, wantSlot: "2026-03-03T02:00:00Z", wantRan: true, wantRecords: 2},
		"slot before the registration": {
			before: []fire{{at: "2026-03-02T12:00:00Z"}}, fire: fire{at: "2026-03-02T13:00:00Z"},
			wantTrigger: store.TriggerManual, wantRan: true, wantRecords: 2},
		"cron-shaped duplicate": {
			before: []fire{{at: "2026-03-02T02:00:05Z"}}, fire: fire{at: "2026-03-02T02:00:40Z"},
			wantTrigger: store.TriggerSchedule, wantSlot: "2026-03-02T02:00:00Z", wantRecords: 2},
		"late duplicate": {
			before: []fire{{at: "2026-03-02T02:00:05Z"}}, fire: fire{at: "2026-03-02T03:30:00Z"},
			wantTrigger: store.TriggerSchedule, wantSlot: "2026-03-02T02:00:00Z", wantRecords: 1},
		"a failed slot runs again, by hand later, as a retry by hand": {
			before: []fire{{at: "2026-03-02T02:00:05Z", argv: fail}}, fire: fire{at: "2026-03-02T02:03:00Z"},
			wantTrigger: store.TriggerManual, wantSlot: "2026-03-02T02:00:00Z", wantRan: true, wantRecords: 2},
		"a failed slot's twin (cron-shaped) is a duplicate": {
			before: []fire{{at: "2026-03-02T02:00:05Z", argv: fail}}, fire: fire{at: "2026-03-02T02:00:40Z"},
			wantTrigger: store.TriggerSchedule, wantSlot: "2026-03-02T02:00:00Z", wantRecords: 2},
		"by hand": {
			before: []fire{{at: "2026-03-02T02:00:05Z"}}, fire: fire{at: "2026-03-02T02:00:40Z", manual: true},
			wantTrigger: store.TriggerManual, wantRan: true, wantRecords: 2},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			run := func(f fire) RunResult {
				t.Helper()
				argv := f.argv
				if argv == nil {
					argv = ok
				}
				m := testMachine(db, mustTime(t, f.at))
				m.Zone = "UTC"
				res, err := Run(context.Background(), st, nil, m, RunRequest{Task: "settle", Schedule: mustSchedule(t, "0 2 * * *", "UTC"), TZ: "UTC", Replay: "all",
					Tolerance: 5 * time.Minute, Argv: argv, Manual: f.manual, KillAfter: time.Second})
				if err != nil {
					t.Fatalf("Run at %s: %v", f.at, err)
				}
				return res
			}
			for _, f := range tc.before {
				run(f)
			}
			res := run(tc.fire)
			slot := ""
			if !res.Run.Slot.IsZero() {
				slot = res.Run.Slot.Format(time.RFC3339)
			}
			if res.Ran != tc.wantRan || slot != tc.wantSlot || res.Run.Trigger != tc.wantTrigger || res.ExitCode != 0 {
				t.Errorf("ran %v, slot %q, trigger %q, exit %d; want ran %v, slot %q, trigger %q, exit 0",
					res.Ran, slot, res.Run.Trigger, res.ExitCode, tc.wantRan, tc.wantSlot, tc.wantTrigger)
			}
			runs, err := st.History(context.Background(), store.HistoryFilter{Task: "settle", Limit: 100})
			if err != nil || len(runs) != tc.wantRecords {
				t.Fatalf("%d records (%v), want %d", len(runs), err, tc.wantRecords)
			}
			if !tc.wantRan && len(runs) > len(tc.before) {
				// The duplicate's record: skipped, exit 0, naming its slot.
				if d := runs[0]; d.Status != store.StatusSkipped || d.ExitCode == nil || *d.ExitCode != 0 ||
					d.Error != ReasonDuplicate+tc.wantSlot {
					t.Errorf("duplicate record %+v", d)
				}
			}
		})
	}
}
