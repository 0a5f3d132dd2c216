package catchup

import (
	"context"
	"os"
	"path/filepath"
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
				if n := strings.Count(all, "task job was retired (catchup forget) since this scan read it"); n != 1 {
					t.Errorf("scan warned %q; want the task retired since this scan read it said once (%d)", all, n)
				}
			})
		}
	}
}
