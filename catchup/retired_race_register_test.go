package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestForgetAfterAScanReadTheLineKeepsItRetired: a scan registers each
// crontab line it reads (scan --crontab, or a plain scan re-reading a
// registered line that was edited); a `catchup forget` that commits after
// the scan read the line's task, before that registration, wins: the
// registration refuses, in its transaction, a task retired since
// (store.Store.UpsertTaskOf), so the task stays retired, its schedule,
// watermark and records as forget left them, nothing of it runs, and the
// scan says so once. The next scan registers the line anew, as of then,
// as it does any retired task's line. Before, the registration revived the
// retired task with its old registration and watermark (and, edited, the
// new schedule), and the scan replayed the slot forget had left named.
func TestForgetAfterAScanReadTheLineKeepsItRetired(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		line  string // the line as the racing scan reads it
		plain bool   // a plain scan (no --crontab): it re-reads the registered line
	}{
		"crontab, line unchanged": {line: "0 * * * * catchup run --task job -- true"},
		"crontab, line edited":    {line: "30 * * * * catchup run --task job -- true"},
		"plain scan, line edited": {line: "30 * * * * catchup run --task job -- true", plain: true},
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f := newRunFixture(t, "2026-03-01T10:00:30Z")
				var st store.Store = f.st
				if backend == "postgres" {
					st = testPostgres(t)
				}
				f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
				tab := filepath.Join(t.TempDir(), "crontab")
				write := func(line string) {
					if err := os.WriteFile(tab, []byte(line+"\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				write("0 * * * * catchup run --task job -- true")
				req := scanRequest()
				req.Crontabs = []CrontabSource{{Name: tab, Path: tab}}
				if _, err := Scan(ctx, st, f.m, req); err != nil { // registers the line
					t.Fatalf("registering scan: %v", err)
				}
				before, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				write(tc.line)
				f.now = mustTime(t, "2026-03-01T15:30:00Z") // 11:00 to 14:00 recorded expired by forget; 15:00 named
				racing := &retireRaceWrite{Store: st, t: t, m: f.m, afterRead: true}
				if tc.plain {
					req.Crontabs = nil
				}
				rep, err := Scan(ctx, racing, f.m, req)
				if err != nil {
					t.Fatalf("racing scan: %v", err)
				}
				if !racing.retired {
					t.Fatal("the forget never came: the scan did not read the task")
				}
				if runs := f.job.runs(t); len(runs) != 0 {
					t.Errorf("the job ran %q; want nothing run", runs)
				}
				cur, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				if cur.Schedule != before.Schedule {
					t.Errorf("the retired task's schedule is %q; want %q, as forget left it", cur.Schedule, before.Schedule)
				}
				retiredUntouched(t, st, before.SettledThrough)
				all := strings.Join(rep.Warnings, "\n")
				for _, ts := range rep.Tasks {
					all += "\n" + strings.Join(ts.Warnings, "\n")
				}
				if n := strings.Count(all, "task job was retired since this scan read it (catchup forget, or its line gone)"); n != 1 {
					t.Errorf("scan warned %q; want the task retired since this scan read it said once (%d)", all, n)
				}
			})
		}
	}
}

// TestForgetBeforeAReschedulingFiresClaimRegistersItAnew: a fire whose
// --cron changed (a rescheduling fire) that read its task before a
// `catchup forget` committed is a later fire of the task's line, which
// forget lets register the task anew from that fire (guarantees T1): the
// task ends as the same fire leaves it after the forget (registered from
// the fire, under the new schedule, its watermark just below the fire's
// slot, not retired), and the old schedule's slots as forget recorded or
// named them: the change's records (the old schedule's expiries, its
// pause's paused) refuse, in their transaction, the task retired since the
// fire read it, and the fire says so. Before, a slot forget named (younger
// than the tolerance) was recorded expired (schedule-changed) by the fire
// after the forget; the registration was already as after the forget.
func TestForgetBeforeAReschedulingFiresClaimRegistersItAnew(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, at := range []string{"2026-03-01T12:30:00Z", "2026-03-01T12:02:00Z"} { // 12:02: forget names slot 12:00, unrecorded
			t.Run(backend+"/"+at, func(t *testing.T) {
				ctx := context.Background()
				fire := func(f *runFixture, st store.Store) {
					req := f.request(t)
					req.Schedule = mustSchedule(t, "30 * * * *", "UTC")
					if _, err := Run(ctx, st, nil, f.m, req); err != nil {
						t.Fatalf("Run: %v", err)
					}
				}
				// The forget first, then the fire: what the race must end as.
				f, st := purgeRaceFixture(t, backend)
				f.now = mustTime(t, at)
				if _, err := Forget(ctx, st, f.m, ForgetRequest{Task: "job"}); err != nil {
					t.Fatal(err)
				}
				fire(f, st)
				want, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				// The forget just after the fire read the task.
				rf, rst := purgeRaceFixture(t, backend)
				rf.now = mustTime(t, at)
				var notices []string
				rf.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
				racing := &retireRaceWrite{Store: rst, t: t, m: rf.m, afterRead: true}
				fire(rf, racing)
				// At 12:02 the fire had a slot to record (12:00) that forget
				// named: its refused record is said, once.
				if all := strings.Join(notices, "\n"); at == "2026-03-01T12:02:00Z" &&
					strings.Count(all, "task job was retired since this fire read it (catchup forget, or its line gone)") != 1 {
					t.Errorf("notices %q; want one saying the task was retired since the fire read it", all)
				}
				if !racing.retired {
					t.Fatal("the forget never came: the fire did not read the task")
				}
				got, err := rst.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				if got.Schedule != want.Schedule || !got.RegisteredAt.Equal(want.RegisteredAt) ||
					!got.SettledThrough.Equal(want.SettledThrough) || !got.RetiredAt.IsZero() {
					t.Errorf("task after the racing fire: %q registered %s, watermark %s, retired %s; want %q, %s, %s, not retired (as after forget, then the fire)",
						got.Schedule, rfc(got.RegisteredAt), rfc(got.SettledThrough), rfc(got.RetiredAt),
						want.Schedule, rfc(want.RegisteredAt), rfc(want.SettledThrough))
				}
				if runs, serial := rf.job.runs(t), f.job.runs(t); len(runs) != len(serial) {
					t.Errorf("the job ran %q; want %q, as after forget, then the fire", runs, serial)
				}
				records := func(st store.Store) map[string]string {
					hist, err := st.History(ctx, store.HistoryFilter{Task: "job", Limit: 100})
					if err != nil {
						t.Fatal(err)
					}
					bySlot := map[string]string{}
					for _, r := range hist {
						bySlot[rfc(r.Slot)] += r.Status + "/" + r.Reason + " "
					}
					return bySlot
				}
				if got, want := records(rst), records(st); !reflect.DeepEqual(got, want) {
					t.Errorf("records by slot after the racing fire:\n%v\nwant, as after forget, then the fire:\n%v", got, want)
				}
			})
		}
	}
}
