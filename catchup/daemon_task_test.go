package catchup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestRegisterDaemonTaskSameScheduleOtherSpelling: a daemon line rewritten
// with another spelling of its schedule (1-5 for MON-FRI) is no schedule
// change: the registered text and the watermark stay. Another schedule
// counts from now.
func TestRegisterDaemonTaskSameScheduleOtherSpelling(t *testing.T) {
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
			if _, err := RegisterDaemonTask(t.Context(), st, testMachine(db, t0), def); err != nil {
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
			got, err := RegisterDaemonTask(t.Context(), st, m, def)
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
