package catchup

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRegisterDaemonTaskSameScheduleOtherSpelling: a daemon line rewritten
// with another spelling of its schedule (1-5 for MON-FRI) is no schedule
// change: the registered text and the watermark stay. Another schedule
// counts from now.
func TestRegisterDaemonTaskSameScheduleOtherSpelling(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		expr, wantExpr string
		reset          bool
	}{
		"same text":       {"30 6 * * MON-FRI", "30 6 * * MON-FRI", false},
		"other spelling":  {"30 6 * * 1-5", "30 6 * * MON-FRI", false},
		"other schedule":  {"30 6 * * 1-6", "30 6 * * 1-6", true},
		"spaces and case": {"30  6 * * mon-fri", "30 6 * * MON-FRI", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			t0 := mustTime(t, "2026-11-16T12:00:00Z")
			def := store.Task{Name: "job", Schedule: "30 6 * * MON-FRI", TZ: "UTC", Replay: "all", Argv: []string{"true"}, Source: "daemon:/c:1"}
			if _, _, err := RegisterDaemonTask(t.Context(), st, testMachine(db, t0), def, false, time.Time{}); err != nil {
				t.Fatal(err)
			}
			before, err := st.Task(t.Context(), "job")
			if err != nil {
				t.Fatal(err)
			}
			t1 := mustTime(t, "2026-11-18T12:00:00Z")
			def.Schedule = c.expr
			m := testMachine(db, t1)
			var said strings.Builder
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			got, _, err := RegisterDaemonTask(t.Context(), st, m, def, false, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			after, err := st.Task(t.Context(), "job")
			if err != nil {
				t.Fatal(err)
			}
			if got.Schedule != c.wantExpr || after.Schedule != c.wantExpr {
				t.Errorf("schedule = %q returned, %q stored; want %q", got.Schedule, after.Schedule, c.wantExpr)
			}
			want := before.SettledThrough
			if c.reset {
				want = t1
			}
			if !after.SettledThrough.Equal(want) {
				t.Errorf("watermark = %v, want %v (before %v)", after.SettledThrough, want, before.SettledThrough)
			}
			// A schedule change passes the slots missed before it by: it says
			// so (a restart with an edited line), as scan does, naming backfill.
			if warned := strings.Contains(said.String(), "catchup backfill --task job"); warned != c.reset {
				t.Errorf("said %q; want a warning naming backfill: %v", said.String(), c.reset)
			}
		})
	}
}

// upsertCounter counts the task writes that reach the ledger.
type upsertCounter struct {
	store.Store
	upserts int
}

func (u *upsertCounter) UpsertTask(ctx context.Context, t store.Task) error {
	u.upserts++
	return u.Store.UpsertTask(ctx, t)
}

func (u *upsertCounter) UpsertTaskOf(ctx context.Context, of store.Of, t store.Task) error {
	u.upserts++
	return u.Store.UpsertTaskOf(ctx, of, t)
}

// TestRegisterDaemonTaskUnchangedWritesNothing: a daemon's start and each
// reload register every line again; a line whose registration would stay
// as it is writes nothing (at 2,000 lines that was 2,000 fsynced
// transactions, 10 s before a reload took effect). A line that changed,
// or a task retired meanwhile, is written.
func TestRegisterDaemonTaskUnchangedWritesNothing(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		change     func(def *store.Task)
		retire     bool
		wantWrites int
	}{
		"unchanged":          {change: func(*store.Task) {}, wantWrites: 0},
		"schedule respelled": {change: func(d *store.Task) { d.Schedule = "30 6 * * 1-5" }, wantWrites: 0},
		"command changed":    {change: func(d *store.Task) { d.Argv = []string{"false"} }, wantWrites: 1},
		"schedule changed":   {change: func(d *store.Task) { d.Schedule = "30 7 * * MON-FRI" }, wantWrites: 1},
		"timeout added":      {change: func(d *store.Task) { d.Timeout = time.Minute }, wantWrites: 1},
		"moved to line 2":    {change: func(d *store.Task) { d.Source = "daemon:/c:2" }, wantWrites: 1},
		"retired meanwhile":  {change: func(*store.Task) {}, retire: true, wantWrites: 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			t0 := mustTime(t, "2026-11-16T12:00:00Z")
			def := store.Task{Name: "job", Schedule: "30 6 * * MON-FRI", TZ: "UTC", Replay: "all", Argv: []string{"true"},
				Source: "daemon:/c:1", NotifyCmd: "mail -s x ops"}
			if _, _, err := RegisterDaemonTask(t.Context(), st, testMachine(db, t0), def, false, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if c.retire {
				if _, err := st.Forget(t.Context(), "job", mustTime(t, "2026-11-17T12:00:00Z"), false); err != nil {
					t.Fatal(err)
				}
			}
			c.change(&def)
			counted := &upsertCounter{Store: st}
			got, _, err := RegisterDaemonTask(t.Context(), counted, testMachine(db, mustTime(t, "2026-11-18T12:00:00Z")), def, false, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if counted.upserts != c.wantWrites {
				t.Errorf("%d task writes, want %d", counted.upserts, c.wantWrites)
			}
			stored, err := st.Task(t.Context(), "job")
			if err != nil {
				t.Fatal(err)
			}
			// What the daemon goes on with is what the ledger holds, but for
			// the time of the registration (not kept when nothing changed).
			got.UpdatedAt, stored.UpdatedAt = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, stored) {
				t.Errorf("returned %+v\nstored   %+v", got, stored)
			}
		})
	}
}
