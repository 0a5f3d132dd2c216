package catchup

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// slotRunsCounter counts the tasks whose runs the calendar has read, and
// its reads of one task's runs.
type slotRunsCounter struct {
	store.Store
	reads, perTask int
}

func (c *slotRunsCounter) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	c.reads++
	c.perTask++
	return c.Store.SlotRuns(ctx, task, from, to, grace)
}

// SlotRunsOf counts each task's runs as they come.
func (c *slotRunsCounter) SlotRunsOf(ctx context.Context, ranges []store.SlotRange, grace time.Duration,
	fn func(i int, runs []store.Run) error) error {
	return c.Store.SlotRunsOf(ctx, ranges, grace, func(i int, runs []store.Run) error {
		c.reads++
		return fn(i, runs)
	})
}

// calendarRows collects every row Calendar emits (each row's slots copied:
// Calendar reuses them for the next row).
func calendarRows(t *testing.T, st store.Store, m Machine, req CalendarRequest) []CalendarRow {
	t.Helper()
	var rows []CalendarRow
	if err := Calendar(context.Background(), st, m, req, func(r CalendarRow) error {
		r.Slots = slices.Clone(r.Slots)
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCalendarEmitsEachRowBeforeTheNext: the calendar passes each task's
// row to the renderer before it reads the next task's runs, so that no
// more than one row of slots is held at once. It kept every row (10,000
// every-minute tasks over 7 days: 100 M slots, 11 GB) until the last.
func TestCalendarEmitsEachRowBeforeTheNext(t *testing.T) {
	t.Parallel()
	st, db := testLedger(t)
	ctx := context.Background()
	reg := mustTime(t, "2026-11-19T00:00:00Z")
	const tasks = 200
	for i := range tasks {
		if err := st.UpsertTask(ctx, store.Task{Name: fmt.Sprintf("job-%03d", i), Schedule: "* * * * *", TZ: "UTC",
			RegisteredAt: reg, SettledThrough: reg}); err != nil {
			t.Fatal(err)
		}
	}
	cc := &slotRunsCounter{Store: st}
	now := mustTime(t, "2026-11-20T00:00:30Z")
	emitted := 0
	err := Calendar(ctx, cc, testMachine(db, now), CalendarRequest{From: reg.Add(-time.Second), To: now,
		Rule: MissedRule{Tolerance: 5 * time.Minute}}, func(r CalendarRow) error {
		emitted++
		if cc.reads != emitted {
			return fmt.Errorf("row %d (%s) came after %d tasks' runs were read, want %d: rows are held until the last", emitted, r.Task, cc.reads, emitted)
		}
		if len(r.Slots) != 1441 {
			return fmt.Errorf("row %s: %d slots, want 1441", r.Task, len(r.Slots))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if emitted != tasks {
		t.Fatalf("%d rows, want %d", emitted, tasks)
	}
	if cc.perTask != 0 {
		t.Errorf("%d reads of one task's runs, want none: every task's are read at once", cc.perTask)
	}
}
