package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestDaemonChangeCountsFromWhatItLeftToTheLoop: a daemon started at
// 10:00:30 (its loops fire the slots after it, late) registers a line
// edited from */2 to * at 10:02:30 (the ledger was slow). The old slot
// 10:02, which * has too, is left to the new loop's fire (RecordLeftBehind
// does not record it, as the daemon's leaveChanged asks). Should that fire
// never come (the daemon killed first), the slot must stay missed for the
// next start or scan: the new schedule counts from 10:01:59, not from the
// registration. With no firesFrom (zero: no loop fires an old slot), it
// counts from now, and 10:02 is recorded expired.
func TestDaemonChangeCountsFromWhatItLeftToTheLoop(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		firesFrom, want string
		missed          bool
	}{
		"from the start": {"2026-11-16T10:00:30Z", "2026-11-16T10:01:59Z", true},
		"from now":       {"", "2026-11-16T10:02:30Z", false},
	} {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			def := store.Task{Name: "job", Schedule: "*/2 * * * *", TZ: "UTC", Replay: "all", Argv: []string{"true"}, Source: "daemon:/c:1"}
			if _, _, err := RegisterDaemonTask(t.Context(), st, testMachine(db, mustTime(t, "2026-11-16T09:00:00Z")), def, false, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if err := st.SetSettled(t.Context(), "job", mustTime(t, "2026-11-16T10:00:00Z")); err != nil {
				t.Fatal(err)
			}
			var from time.Time
			if tc.firesFrom != "" {
				from = mustTime(t, tc.firesFrom)
			}
			now := mustTime(t, "2026-11-16T10:02:30Z")
			def.Schedule = "* * * * *"
			got, replaced, err := RegisterDaemonTask(t.Context(), st, testMachine(db, now), def, false, from)
			if err != nil {
				t.Fatal(err)
			}
			want := mustTime(t, tc.want)
			if !got.SettledThrough.Equal(want) || !got.ScheduleSince.Equal(want) {
				t.Fatalf("watermark %s, schedule since %s; want both %s", got.SettledThrough, got.ScheduleSince, want)
			}
			// What the daemon records of the old schedule (leaveChanged's
			// Taken: the loop's from, or when the schedule took effect).
			taken := got.ScheduleSince
			if !from.IsZero() && from.Before(taken) {
				taken = from
			}
			lb := LeftBehind{Old: replaced.Task, Expr: got.Schedule, TZ: got.TZ, Cut: now, Taken: taken}
			if _, _, err := RecordLeftBehind(t.Context(), st, testMachine(db, now), lb); err != nil {
				t.Fatal(err)
			}
			// The new loop never fires 10:02; the next start reads the ledger.
			later := testMachine(db, mustTime(t, "2026-11-16T10:02:50Z"))
			all, err := List(t.Context(), st, later, ListRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var missed []string
			for _, ts := range all {
				for _, s := range ts.Missed {
					missed = append(missed, s.UTC().Format("15:04"))
				}
			}
			runs, err := st.History(t.Context(), store.HistoryFilter{Task: "job", Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if tc.missed && (strings.Join(missed, " ") != "10:02" || len(runs) != 0) {
				t.Errorf("missed %q, %d records; want 10:02 missed, nothing recorded (the new line has it)", missed, len(runs))
			}
			if !tc.missed && (len(missed) != 0 || len(runs) != 1 || runs[0].Status != store.StatusExpired) {
				t.Errorf("missed %q, records %+v; want 10:02 recorded expired (no loop fires it), none missed", missed, runs)
			}
		})
	}
}
