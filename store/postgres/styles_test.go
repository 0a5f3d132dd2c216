package postgres_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReadsWhateverTheServerStyle: the ledger reads what it wrote when the
// session's settings (as a server, database or role may set them) make
// times and bytea read as text look otherwise: DateStyle 'SQL, DMY' and
// bytea_output 'escape'. Statements go in pgx's exec mode, which reads
// results as text (see execMode).
func TestReadsWhateverTheServerStyle(t *testing.T) {
	dsn := pgLedger(t)
	plain := openPG(t, dsn)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("options", q.Get("options")+" -cDateStyle=SQL,DMY -cbytea_output=escape")
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // pgx reads + as itself
	styled := openPG(t, u.String())

	var on, off string
	if err := pgAdmin(t, u.String()).QueryRow(t.Context(), `SELECT current_setting('DateStyle'), current_setting('bytea_output')`).Scan(&on, &off); err != nil {
		t.Fatal(err)
	}
	if on != "SQL, DMY" || off != "escape" {
		t.Fatalf("the styled session has DateStyle %q, bytea_output %q: the test would prove nothing", on, off)
	}

	ctx := t.Context()
	task := store.Task{Name: "styled", Schedule: "0 * * * *", TZ: "Europe/Paris", Source: "run",
		RegisteredAt: t0.Add(-48 * time.Hour), SettledThrough: t0.Add(-time.Hour)}
	if err := styled.UpsertTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	// Three times: the later runs of a statement take another path (execmode.go).
	var want store.Run
	for n := range 3 {
		slot := t0.Add(time.Duration(n) * time.Hour)
		id := mustClaim(t, styled, store.Run{Task: "styled", Slot: slot, Trigger: store.TriggerSchedule,
			StartedAt: slot.Add(1234 * time.Millisecond), Host: "h1", BootID: "b1"})
		tail := []byte{0, 1, '\\', 'x', 0xff, '\n', 'o', 'k'}
		if err := styled.Finish(ctx, id, store.Outcome{Status: store.StatusSucceeded, ExitCode: intp(0),
			EndedAt: slot.Add(5 * time.Second), StdoutTail: tail, StderrTail: []byte{}}); err != nil {
			t.Fatal(err)
		}

		got := getRun(t, styled, id)
		want = getRun(t, plain, id)
		if !sameRun(got, want) || string(got.StdoutTail) != string(tail) || !got.Slot.Equal(slot) ||
			!got.StartedAt.Equal(slot.Add(1234*time.Millisecond)) {
			t.Errorf("styled session read %+v\nplain session read %+v", got, want)
		}
		gt, err := styled.Task(ctx, "styled")
		if err != nil {
			t.Fatal(err)
		}
		wt, err := plain.Task(ctx, "styled")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gt, wt) || !gt.RegisteredAt.Equal(task.RegisteredAt) {
			t.Errorf("styled session read task %+v\nplain session read %+v", gt, wt)
		}
		gs, err := styled.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := plain.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gs, ws) {
			t.Errorf("styled session listed %+v\nplain session listed %+v", gs, ws)
		}
	}
	ge, err := styled.ExportRuns(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ge) != 3 || !sameRun(ge[2], want) {
		t.Errorf("styled session exported %+v, want %+v", ge, want)
	}
}

// TestDSNExecModes: a DSN that picks pgx's exec mode itself
// (default_query_exec_mode) keeps it, and the ledger works in each.
func TestDSNExecModes(t *testing.T) {
	for i, mode := range []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"} {
		t.Run(mode, func(t *testing.T) {
			dsn := pgLedger(t)
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("default_query_exec_mode", mode)
			u.RawQuery = q.Encode()
			s := openPG(t, u.String())
			ctx := t.Context()
			for n := range 3 { // the later runs of a statement take another path (execmode.go)
				slot := t0.Add(time.Duration(i*10+n) * time.Hour)
				id := mustClaim(t, s, store.Run{Task: "modes", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot,
					Host: "h1", BootID: "b1"})
				tail := []byte{0, '\\', 0xff, 'o', 'k'}
				if err := s.Finish(ctx, id, store.Outcome{Status: store.StatusSucceeded, ExitCode: intp(0),
					EndedAt: slot.Add(time.Second), StdoutTail: tail}); err != nil {
					t.Fatal(err)
				}
				got := getRun(t, s, id)
				if got.Status != store.StatusSucceeded || !got.Slot.Equal(slot) || string(got.StdoutTail) != string(tail) {
					t.Errorf("run %d read back as %+v", id, got)
				}
				if _, err := s.Tasks(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestDSNWithoutStatementCache: a DSN that disables pgx's statement cache
// (statement_cache_capacity=0, as behind a pooler that keeps no prepared
// statements) and picks no mode works on every run of a statement, not on
// its first alone: the later runs of a statement must not ask for the
// cache-statement mode ("cannot use QueryExecModeCacheStatement with
// disabled statement cache"), which made a scan claim its first replay
// and fail the others, exit 0.
func TestDSNWithoutStatementCache(t *testing.T) {
	dsn := pgLedger(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("statement_cache_capacity", "0")
	u.RawQuery = q.Encode()
	s := openPG(t, u.String())
	ctx := t.Context()
	for n := range 3 { // the later runs of a statement take another path (execmode.go)
		slot := t0.Add(time.Duration(n) * time.Hour)
		id := mustClaim(t, s, store.Run{Task: "nocache", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot,
			Host: "h1", BootID: "b1"})
		if err := s.Finish(ctx, id, store.Outcome{Status: store.StatusSucceeded, ExitCode: intp(0),
			EndedAt: slot.Add(time.Second), StdoutTail: []byte("ok")}); err != nil {
			t.Fatalf("run %d: %v", n, err)
		}
		if got := getRun(t, s, id); got.Status != store.StatusSucceeded || !got.Slot.Equal(slot) {
			t.Errorf("run %d read back as %+v", id, got)
		}
		if _, err := s.SlotRuns(ctx, "nocache", t0, slot, time.Minute); err != nil { // a batch
			t.Fatalf("run %d: %v", n, err)
		}
	}
}
