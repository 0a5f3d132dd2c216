package catchup

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestFireOfEditedLine: a fire (without --cron) of a crontab line's task
// that its registered schedule does not explain re-reads the line. An
// edited line is registered as it now reads, and the fire stands for the
// new schedule's slot, never for a slot of the old one; an unchanged line
// leaves a late fire the late fire of its slot.
func TestFireOfEditedLine(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		line    string // the line's schedule when the fire comes ("" = unchanged)
		prior   string // a fire of the old schedule before, or ""
		at      string // the fire
		want    []string
		wantReg string // the registered schedule after the fire
	}{
		"edited to 03:00, fired at 03:00 after 02:00 succeeded": {line: "0 3 * * *", prior: "2026-11-11T02:00:02Z",
			at: "2026-11-11T03:00:02Z", want: []string{"2026-11-11T02:00:00Z schedule", "2026-11-11T03:00:00Z schedule"}, wantReg: "0 3 * * *"},
		"edited to 03:00, fired late at 03:07, 02:00 not run": {line: "0 3 * * *",
			at: "2026-11-11T03:07:00Z", want: []string{"2026-11-11T03:00:00Z schedule"}, wantReg: "0 3 * * *"},
		"edited to 02:03, within tolerance of the succeeded 02:00": {line: "3 2 * * *", prior: "2026-11-11T02:00:02Z",
			at: "2026-11-11T02:03:01Z", want: []string{"2026-11-11T02:00:00Z schedule", "2026-11-11T02:03:00Z schedule"}, wantReg: "3 2 * * *"},
		"weekdays edited to every day, Saturday's fire": {line: "0 2 * * *", prior: "2026-11-13T02:00:01Z",
			at: "2026-11-14T02:00:01Z", want: []string{"2026-11-13T02:00:00Z schedule", "2026-11-14T02:00:00Z schedule"}, wantReg: "0 2 * * *"},
		"unchanged, 7 minutes late": {
			at: "2026-11-11T02:07:00Z", want: []string{"2026-11-11T02:00:00Z schedule"}, wantReg: "0 2 * * 1-5"},
		"unchanged, an hour late after the slot succeeded": {prior: "2026-11-11T02:00:02Z",
			at: "2026-11-11T03:00:02Z", want: []string{"2026-11-11T02:00:00Z schedule"}, wantReg: "0 2 * * 1-5"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-11-10T12:00:00Z")
			f.m.Zone = "UTC"
			tab := filepath.Join(t.TempDir(), "crontab")
			writeLine := func(expr string) {
				if err := os.WriteFile(tab, []byte(expr+" catchup run --task job -- true\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			writeLine("0 2 * * 1-5")
			ctx := context.Background()
			if _, err := Scan(ctx, f.st, f.m, ScanRequest{Crontabs: []CrontabSource{{Name: tab, Path: tab}}, MaxReplays: 1, MissedRule: MissedRule{Tolerance: 5 * time.Minute}}); err != nil {
				t.Fatal(err)
			}
			req := f.request(t)
			req.Schedule, req.TZ = nil, ""
			if tc.prior != "" {
				f.now = mustTime(t, tc.prior)
				f.run(t, req)
			}
			if tc.line != "" {
				writeLine(tc.line)
			}
			f.now = mustTime(t, tc.at)
			f.run(t, req)
			if got := f.job.runs(t); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("the job ran for %q, want %q", got, tc.want)
			}
			task, err := f.st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			if task.Schedule != tc.wantReg {
				t.Errorf("registered schedule %q, want %q", task.Schedule, tc.wantReg)
			}
		})
	}
}
