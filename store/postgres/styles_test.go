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
	id := mustClaim(t, styled, store.Run{Task: "styled", Slot: t0, Trigger: store.TriggerSchedule,
		StartedAt: t0.Add(1234 * time.Millisecond), Host: "h1", BootID: "b1"})
	tail := []byte{0, 1, '\\', 'x', 0xff, '\n', 'o', 'k'}
	if err := styled.Finish(ctx, id, store.Outcome{Status: store.StatusSucceeded, ExitCode: intp(0),
		EndedAt: t0.Add(5 * time.Second), StdoutTail: tail, StderrTail: []byte{}}); err != nil {
		t.Fatal(err)
	}

	got := getRun(t, styled, id)
	want := getRun(t, plain, id)
	if !sameRun(got, want) || string(got.StdoutTail) != string(tail) || !got.Slot.Equal(t0) ||
		!got.StartedAt.Equal(t0.Add(1234*time.Millisecond)) {
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
	ge, err := styled.ExportRuns(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ge) != 1 || !sameRun(ge[0], want) {
		t.Errorf("styled session exported %+v, want %+v", ge, want)
	}
}
