package catchup

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReadersAgreeWithTheClaim: a slot with a succeeded run and a later
// failed record of it (two hosts' ledgers migrated into one, a failed
// run --force after a success, two hosts on a shared ledger) is held by
// its success: the claim refuses it as already succeeded. ls --missed,
// metrics, scan --dry-run, explain and calendar say so too, with and
// without --retry-failed, and a real scan --retry-failed replays exactly
// the slots the readers counted (a failed slot alone), running each.
func TestReadersAgreeWithTheClaim(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 2, 0, 0, 0, time.UTC) }
	for _, retry := range []bool{false, true} {
		name := "without --retry-failed"
		if retry {
			name = "--retry-failed"
		}
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			job := slotLog{dir: t.TempDir()}
			reg := day(17)
			if err := st.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 2 * * *", TZ: "UTC", Replay: "all",
				RegisteredAt: reg, SettledThrough: reg, Argv: job.argv(), Dir: job.dir}); err != nil {
				t.Fatal(err)
			}
			add := func(slot time.Time, status, host string, code int) int64 {
				t.Helper()
				id, err := st.AddRun(ctx, store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Status: status,
					Attempt: 1, StartedAt: slot.Add(time.Second), EndedAt: slot.Add(time.Minute), ExitCode: exitCodePtr(code),
					Host: host, BootID: "boot-" + host})
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
			// Host a's history, then host b's (migrated later: higher ids).
			add(day(17), store.StatusSucceeded, "a", 0)
			ok18 := add(day(18), store.StatusSucceeded, "a", 0)
			add(day(19), store.StatusSucceeded, "a", 0)
			ok20 := add(day(20), store.StatusSucceeded, "a", 0)
			add(day(17), store.StatusSucceeded, "b", 0)
			add(day(18), store.StatusFailed, "b", 1)
			add(day(19), store.StatusFailed, "b", 1)
			add(day(20), store.StatusFailed, "b", 1)
			// 11-21: failed alone, on host b only: --retry-failed replays it.
			failed21 := add(day(21), store.StatusFailed, "b", 1)

			m := testMachine(db, mustTime(t, "2026-11-21T09:00:00Z"))
			rule := MissedRule{Tolerance: 5 * time.Minute, RetryFailed: retry}
			var want []time.Time
			if retry {
				want = []time.Time{day(21)}
			}

			list, err := List(ctx, st, m, ListRequest{Rule: rule})
			if err != nil {
				t.Fatal(err)
			}
			if got := list[0].Missed; !reflect.DeepEqual(got, want) {
				t.Errorf("ls --missed: %v, want %v", got, want)
			}
			met, err := Metrics(ctx, st, m, rule)
			if err != nil {
				t.Fatal(err)
			}
			if met[0].Missed != len(want) {
				t.Errorf("metrics: %d missed, want %d", met[0].Missed, len(want))
			}
			dry, err := Scan(ctx, st, m, ScanRequest{DryRun: true, MissedRule: rule, MaxReplays: 100})
			if err != nil {
				t.Fatal(err)
			}
			if got := dry.Tasks[0].Missed; !reflect.DeepEqual(got, want) {
				t.Errorf("scan --dry-run would replay %v, want %v", got, want)
			}
			for _, c := range []struct {
				slot  time.Time
				runID int64
			}{{day(18), ok18}, {day(20), ok20}} {
				x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: c.slot, MissedRule: rule})
				if err != nil {
					t.Fatal(err)
				}
				if x.State != StateSettled || x.Run == nil || x.Run.ID != c.runID || strings.Contains(x.Summary, "would replay") {
					t.Errorf("explain %s: state %s, run %v, %q; want settled by run %d (succeeded), nothing to replay",
						c.slot.Format(time.RFC3339), x.State, x.Run, x.Summary, c.runID)
				}
			}
			x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: day(21), MissedRule: rule})
			if err != nil {
				t.Fatal(err)
			}
			if wantState := map[bool]string{false: StateSettled, true: StateMissed}[retry]; x.State != wantState {
				t.Errorf("explain of the failed slot: state %s (%q), want %s", x.State, x.Summary, wantState)
			} else if !retry && (x.Run == nil || x.Run.ID != failed21) {
				t.Errorf("explain of the failed slot: run %v, want %d", x.Run, failed21)
			}
			rows := calendarRows(t, st, m, CalendarRequest{From: reg, To: day(21), Rule: MissedRule{Tolerance: rule.Tolerance}})
			for _, c := range rows[0].Slots {
				if (c.Slot.Equal(day(18)) || c.Slot.Equal(day(20))) && c.State == CellFailed {
					t.Errorf("calendar shows %s failed (run %d): it succeeded, and no scan replays it", c.Slot.Format(time.RFC3339), c.RunID)
				}
			}

			// What a real scan does: it replays the slots the readers listed,
			// runs each, and skips none as already succeeded.
			rep, err := Scan(ctx, st, m, ScanRequest{MissedRule: rule, MaxReplays: 100})
			if err != nil {
				t.Fatal(err)
			}
			var replayed []time.Time
			for a := range rep.Tasks[0].SlotActions() {
				replayed = append(replayed, a.Slot)
				if a.Action != ActionReplayed && a.Action != ActionFailed {
					t.Errorf("scan: slot %s %s (%s): the readers counted it missed, the scan did not run it",
						a.Slot.Format(time.RFC3339), a.Action, a.Reason)
				}
			}
			if !reflect.DeepEqual(replayed, want) {
				t.Errorf("scan acted on %v, want %v", replayed, want)
			}
			after, err := List(ctx, st, m, ListRequest{Rule: rule})
			if err != nil {
				t.Fatal(err)
			}
			if len(after[0].Missed) != 0 {
				t.Errorf("ls --missed after the scan: %v, want none", after[0].Missed)
			}
		})
	}
}
