package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestMigrateKeepsASharedTasksOwnSchedule: a host's schedule or zone of a
// task goes over with migrate only where no other host runs the task.
// Carried onto a task the shared ledger ran on under another zone (its
// definition newer here), it changed the fleet's schedule without a
// schedule change: the shared task's missed slots vanished from ls --missed
// and scan, none recorded expired, no alert, no word (found by the operator
// review: Asia/Kolkata on the fleet, Asia/Kathmandu on the host). Migrate
// says what it did not carry; another name of the same zone is no change.
func TestMigrateKeepsASharedTasksOwnSchedule(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		hereExpr, hereTZ string
		sharedRuns       bool
		wantTZ, wantExpr string
		wantNotice       bool
	}{
		"zone differs, run there":         {hereExpr: "0 * * * *", hereTZ: "Asia/Kathmandu", sharedRuns: true, wantTZ: "Asia/Kolkata", wantExpr: "0 * * * *", wantNotice: true},
		"expression differs, run there":   {hereExpr: "30 * * * *", hereTZ: "Asia/Kolkata", sharedRuns: true, wantTZ: "Asia/Kolkata", wantExpr: "0 * * * *", wantNotice: true},
		"zone differs, new there":         {hereExpr: "0 * * * *", hereTZ: "Asia/Kathmandu", wantTZ: "Asia/Kathmandu", wantExpr: "0 * * * *"},
		"another name of the zone, there": {hereExpr: "0 * * * *", hereTZ: "Asia/Calcutta", sharedRuns: true, wantTZ: "Asia/Calcutta", wantExpr: "0 * * * *"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dst := testPostgres(t)
			src, path := testLedger(t)
			if c.sharedRuns {
				reg := mustTime(t, "2026-09-20T00:30:00Z")
				d := store.Task{Name: "k", Schedule: "0 * * * *", TZ: "Asia/Kolkata", Replay: "all", Argv: []string{"true"}, Source: "run",
					RegisteredAt: reg, UpdatedAt: reg}
				if err := dst.UpsertTask(ctx, d); err != nil {
					t.Fatal(err)
				}
				slot := mustTime(t, "2026-09-20T00:30:00Z")
				if _, err := dst.AddRun(ctx, store.Run{Task: "k", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusSucceeded,
					Attempt: 1, StartedAt: slot, EndedAt: slot, Host: "hostB"}); err != nil {
					t.Fatal(err)
				}
			}
			// Registered here before, and its definition written later.
			reg, upd := mustTime(t, "2026-09-20T00:15:00Z"), mustTime(t, "2026-09-20T01:15:00Z")
			def := store.Task{Name: "k", Schedule: c.hereExpr, TZ: c.hereTZ, Replay: "all", Argv: []string{"true"}, Source: "run",
				RegisteredAt: reg, UpdatedAt: upd}
			if err := src.UpsertTask(ctx, def); err != nil {
				t.Fatal(err)
			}
			m := testMachine(path, mustTime(t, "2026-09-20T05:00:00Z"))
			var said strings.Builder
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			if _, err := Migrate(ctx, m, Migration{From: src, FromPath: path, To: dst, ToWhere: "the shared ledger"}); err != nil {
				t.Fatal(err)
			}
			got, err := dst.Task(ctx, "k")
			if err != nil {
				t.Fatal(err)
			}
			if got.Schedule != c.wantExpr || got.TZ != c.wantTZ {
				t.Errorf("shared task's schedule is %q in %s; want %q in %s", got.Schedule, got.TZ, c.wantExpr, c.wantTZ)
			}
			if notice := said.String(); c.wantNotice != strings.Contains(notice, "not carried") {
				t.Errorf("migrate said %q; want a line saying what it did not carry: %v", notice, c.wantNotice)
			}
		})
	}
}
