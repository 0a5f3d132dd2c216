package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlainScanOfEditedLine: a plain scan (no --crontab) re-reading a
// registered line whose schedule or zone changed registers the line as
// scan --crontab does (the warning, the watermark at now) before it looks
// for missed slots: none of the old schedule's slots is replayed with the
// new line, but a slot the new line has too, younger than the tolerance, is
// left above the watermark for its fire (or, failing it, a later scan).
// Another spelling of the schedule is no change; a removed line's task is
// retired, never replayed with the line now at its line number. The slots
// the edit or removal leaves behind are recorded expired (a dry run: would
// be), and the scan's report counts them missed and expired, none
// replayed (before, it counted none).
func TestPlainScanOfEditedLine(t *testing.T) {
	t.Parallel()
	const job = " catchup run --task job -- true\n"
	tests := map[string]struct {
		tab         string // the crontab at the plain scan
		dry         bool
		wantMissed  int    // the slots the report counts missed
		wantReg     string // the registered schedule and zone after the scan
		wantWarn    bool   // the schedule-change warning
		wantRetired bool
		wantFrom    string // the watermark after a change: "" for the scan's time
	}{
		"*/5 edited to 0 3": {tab: "0 3 * * *" + job, wantMissed: 11, wantReg: "0 3 * * * UTC", wantWarn: true},
		"*/5 edited to 0 3, dry run": {tab: "0 3 * * *" + job, dry: true, wantMissed: 11,
			wantReg: "*/5 * * * * UTC", wantWarn: true},
		"CRON_TZ added": {tab: "CRON_TZ=Asia/Tokyo\n*/5 * * * *" + job, wantMissed: 10, wantReg: "*/5 * * * * Asia/Tokyo", wantWarn: true,
			wantFrom: "2026-12-02T03:29:59Z"}, // 03:30, in both zones, is left to its fire
		"unchanged": {tab: "*/5 * * * *" + job, dry: true, wantMissed: 10, wantReg: "*/5 * * * * UTC"},
		"another spelling of the schedule": {tab: "*/5 * * * 0-6" + job, dry: true, wantMissed: 10,
			wantReg: "*/5 * * * * UTC"},
		"line removed, another task's at its line number": {tab: "0 3 * * * catchup run --task other -- true\n",
			wantMissed: 11, wantReg: "*/5 * * * * UTC", wantRetired: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-12-02T02:40:00Z")
			f.m.Zone = "UTC"
			tab := filepath.Join(t.TempDir(), "crontab")
			write := func(text string) {
				if err := os.WriteFile(tab, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write("*/5 * * * *" + job)
			ctx := context.Background()
			rule := MissedRule{Tolerance: 5 * time.Minute}
			if _, err := Scan(ctx, f.st, f.m, ScanRequest{Crontabs: []CrontabSource{{Name: tab, Path: tab}}, MissedRule: rule}); err != nil {
				t.Fatal(err)
			}
			write(tc.tab)
			f.now = mustTime(t, "2026-12-02T03:30:00Z")
			rep, err := Scan(ctx, f.st, f.m, ScanRequest{DryRun: tc.dry, MissedRule: rule})
			if err != nil {
				t.Fatal(err)
			}
			var missed []time.Time
			expired, replayed := 0, 0
			for _, ts := range rep.Tasks {
				missed = append(missed, ts.Missed...)
				expired += ts.Expired
				for a := range ts.SlotActions() {
					if a.Action == ActionReplayed || a.Action == ActionPlanned {
						replayed++
					}
				}
				if ts.Task != "job" {
					t.Errorf("scanned task %s, want job only", ts.Task)
				}
			}
			if len(missed) != tc.wantMissed {
				t.Errorf("%d missed slots, want %d: %v", len(missed), tc.wantMissed, missed)
			}
			if left := tc.wantWarn || tc.wantRetired; left && (expired != len(missed) || replayed != 0) {
				t.Errorf("%d expired, %d replayed of %d missed: want each left behind expired, none replayed", expired, replayed, len(missed))
			}
			warned := strings.Contains(strings.Join(rep.Warnings, "\n"), "schedule changes from")
			if warned != tc.wantWarn {
				t.Errorf("schedule-change warning %v, want %v: %q", warned, tc.wantWarn, rep.Warnings)
			}
			task, err := f.st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			if got := task.Schedule + " " + task.TZ; got != tc.wantReg {
				t.Errorf("registered %q, want %q", got, tc.wantReg)
			}
			if got := !task.RetiredAt.IsZero(); got != tc.wantRetired {
				t.Errorf("retired %v, want %v", got, tc.wantRetired)
			}
			from := f.now
			if tc.wantFrom != "" {
				from = mustTime(t, tc.wantFrom)
			}
			if tc.wantWarn && !tc.dry && !task.SettledThrough.Equal(from) {
				t.Errorf("watermark %s, want %s", task.SettledThrough, from)
			}
		})
	}
}
