package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestPruneLeavesTasksItCannotRead: a task scan passes by (a registered
// schedule that does not parse, a ledger holding a slot later than now)
// has missed slots prune cannot tell; moving its watermark to the cut
// would drop those before it unrecorded once the schedule is fixed or the
// clock catches up. Prune leaves such a task whole (its runs and its
// watermark) and says why; the other tasks are pruned.
func TestPruneLeavesTasksItCannotRead(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		spoil   func(t *testing.T, f *runFixture) // after the fires at 10-20 and 11-01
		now     string                            // the prune's clock
		wantWhy string
	}{
		"a schedule that does not parse": {
			spoil: func(t *testing.T, f *runFixture) {
				task, err := f.st.Task(context.Background(), "job")
				if err != nil {
					t.Fatal(err)
				}
				task.Schedule = "0 2 * * 7-1" // as an older catchup registered it
				if err := f.st.UpsertTask(context.Background(), task); err != nil {
					t.Fatal(err)
				}
			},
			now:     "2026-11-20T12:00:00Z",
			wantWhy: `registered schedule "0 2 * * 7-1" cannot be read`,
		},
		"a clock behind the ledger": {
			spoil: func(t *testing.T, f *runFixture) {
				f.now = mustTime(t, "2026-11-25T02:00:04Z") // then the clock goes back
				if res := f.run(t, f.daily(t)); res.ExitCode != 0 {
					t.Fatalf("fire of 11-25: exit %d", res.ExitCode)
				}
			},
			now:     "2026-11-20T12:00:00Z",
			wantWhy: "later than now",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-10-20T02:00:04Z")
			for _, day := range []string{"2026-10-20T02:00:04Z", "2026-11-01T02:00:04Z"} {
				f.now = mustTime(t, day)
				if res := f.run(t, f.daily(t)); res.ExitCode != 0 {
					t.Fatalf("fire of %s: exit %d", day, res.ExitCode)
				}
			}
			tc.spoil(t, f)
			before, err := f.st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			runs := len(f.history(t))
			f.now = mustTime(t, tc.now)
			got, err := Prune(ctx, f.st, f.m, PruneRequest{OlderThan: MinPruneAge, Keep: 1})
			if err != nil {
				t.Fatalf("Prune: %v", err)
			}
			if len(got.Left) != 1 || got.Left[0].Task != "job" || !strings.Contains(got.Left[0].Why, tc.wantWhy) {
				t.Errorf("Prune left %+v, want task job, why containing %q", got.Left, tc.wantWhy)
			}
			after, err := f.st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			if !after.SettledThrough.Equal(before.SettledThrough) {
				t.Errorf("watermark moved from %v to %v: the slots missed before the cut would never be looked for",
					before.SettledThrough, after.SettledThrough)
			}
			if n := len(f.history(t)); n != runs || got.Runs != 0 {
				t.Errorf("%d of %d runs left (prune said %d deleted), want all kept", n, runs, got.Runs)
			}
		})
	}
}

// daily is a daily 02:00 (UTC) fire of task "job".
func (f *runFixture) daily(t *testing.T) RunRequest {
	t.Helper()
	req := f.request(t)
	req.Schedule = mustSchedule(t, "0 2 * * *", "UTC")
	return req
}

// TestPruneAlertsItsExpiries: a slot prune records expired will never run,
// as one scan records expired: prune runs the same alert (--notify-cmd,
// else the task's own), with CATCHUP_EXPIRED and CATCHUP_EXPIRED_SLOTS.
func TestPruneAlertsItsExpiries(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		own, flag string // the task's --notify-cmd, prune's
	}{
		"the task's own notify-cmd": {own: "alert"},
		"prune's --notify-cmd":      {flag: "alert"},
		"--notify-cmd over the own": {own: "other", flag: "alert"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-11-01T02:00:04Z")
			dir := t.TempDir()
			cmd := func(name string) string {
				if name == "" {
					return ""
				}
				return `echo "$CATCHUP_TASK $CATCHUP_STATUS $CATCHUP_EXPIRED $CATCHUP_EXPIRED_SLOTS" >> ` + filepath.Join(dir, name)
			}
			req := f.daily(t)
			req.NotifyCmd = cmd(tc.own)
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = mustTime(t, "2026-11-20T12:00:00Z") // slots 11-02..11-13 older than the window, before the cut
			got, err := Prune(context.Background(), f.st, f.m, PruneRequest{OlderThan: MinPruneAge, Keep: 1, NotifyCmd: cmd(tc.flag)})
			if err != nil || len(got.Recorded) != 1 || got.Recorded[0].Expired != 12 {
				t.Fatalf("Prune = %+v, %v; want 12 recorded expired", got, err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "alert"))
			if err != nil {
				t.Fatalf("no alert: %v", err)
			}
			want := "job missed 12 2026-11-02T02:00:00Z"
			if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], want) ||
				!strings.HasSuffix(lines[0], " 2026-11-13T02:00:00Z") {
				t.Errorf("alert said %q, want one line %q ... 2026-11-13T02:00:00Z", b, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "other")); err == nil {
				t.Errorf("the task's own notify-cmd ran beside --notify-cmd")
			}
		})
	}
}

// TestPruneAndScanExpireASlotOnce: a scan that records a task's old slots
// expired after prune read the task, before prune records them (and moves
// the watermark): the ledger holds each slot's expired record once, and
// prune counts none of them as its own.
func TestPruneAndScanExpireASlotOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRunFixture(t, "2026-11-01T02:00:04Z")
	if res := f.run(t, f.daily(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-11-20T12:00:00Z")
	var scanned TaskScan
	req := PruneRequest{OlderThan: MinPruneAge, Keep: 1, beforeRecord: func() {
		scanned = f.scan(t, ScanRequest{MaxReplays: 100, MissedRule: MissedRule{Tolerance: DefaultTolerance}})
	}}
	got, err := Prune(ctx, f.st, f.m, req)
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if scanned.Expired != 12 {
		t.Fatalf("the scan between prune's read and its records expired %d slots, want 12 (11-02..11-13)", scanned.Expired)
	}
	exp, err := f.st.ExpiredCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := exp["job"][store.ReasonMaxAge]; n != 12 {
		t.Errorf("%d expired records, want 12: a slot recorded expired twice", n)
	}
	for _, r := range got.Recorded {
		if r.Expired != 0 {
			t.Errorf("prune says it recorded %d expired, want none (the scan had)", r.Expired)
		}
	}
}
