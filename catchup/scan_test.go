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

// newScanFixture registers the hourly task "job" (replay policy policy)
// with its fire of 10:00, and moves the clock to 15:30: slots 11:00 to
// 15:00 are missed.
func newScanFixture(t *testing.T, policy string) *runFixture {
	t.Helper()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	req := f.request(t)
	req.Replay = policy
	if res := f.run(t, req); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	return f
}

// scanRequest is scan's default request.
func scanRequest() ScanRequest {
	return ScanRequest{MaxReplays: 100, MissedRule: MissedRule{MaxAge: DefaultMaxAge, Tolerance: 5 * time.Minute}}
}

// scan runs a scan and returns the report of task "job".
func (f *runFixture) scan(t *testing.T, req ScanRequest) TaskScan {
	t.Helper()
	rep, err := Scan(context.Background(), f.st, f.m, req)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if len(rep.Tasks) != 1 || rep.Tasks[0].Task != "job" {
		t.Fatalf("scanned %+v, want task job", rep.Tasks)
	}
	return rep.Tasks[0]
}

// hours returns the slots at the given hours of 2026-03-01, as the job
// logs them with trigger.
func hours(trigger string, hs ...int) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("2026-03-01T%02d:00:00Z %s", h, trigger))
	}
	return out
}

func slotTimes(t *testing.T, hs ...int) []time.Time {
	var out []time.Time
	for _, h := range hs {
		out = append(out, mustTime(t, fmt.Sprintf("2026-03-01T%02d:00:00Z", h)))
	}
	return out
}

func TestScanReplaysMissedSlotsOldestFirstOnce(t *testing.T) {
	t.Parallel()
	f := newScanFixture(t, "all")
	ts := f.scan(t, scanRequest())
	if !reflect.DeepEqual(ts.Missed, slotTimes(t, 11, 12, 13, 14, 15)) || ts.Replayed != 5 || ts.Failed+ts.Skipped != 0 {
		t.Fatalf("scan: missed %v, replayed %d, failed %d, skipped %d; want 11:00-15:00 replayed", ts.Missed, ts.Replayed, ts.Failed, ts.Skipped)
	}
	want := append(hours("schedule", 10), hours("replay", 11, 12, 13, 14, 15)...)
	if got := f.job.runs(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("job runs %q, want %q", got, want)
	}
	again := f.scan(t, scanRequest())
	if len(again.Missed) != 0 || len(again.Actions) != 0 {
		t.Errorf("second scan: missed %v, actions %+v; want nothing", again.Missed, again.Actions)
	}
	if got := f.job.runs(t); !reflect.DeepEqual(got, want) {
		t.Errorf("second scan ran the job: %q", got)
	}
}

func TestScanPolicies(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		registered string // the task's own policy
		replay     string // scan's --replay
		maxReplays int
		wantRuns   []int // hours replayed
		wantDrops  []int // hours recorded expired
		wantReason string
		wantCode   string
	}{
		"latest":                       {registered: "latest", wantRuns: []int{15}, wantDrops: []int{11, 12, 13, 14}, wantReason: `dropped by replay policy "latest"`, wantCode: store.ReasonPolicy},
		"none":                         {registered: "none"},
		"scan's --replay wins":         {registered: "all", replay: "latest", wantRuns: []int{15}, wantDrops: []int{11, 12, 13, 14}, wantReason: `dropped by replay policy "latest"`, wantCode: store.ReasonPolicy},
		"max-replays keeps the newest": {registered: "all", maxReplays: 2, wantRuns: []int{14, 15}, wantDrops: []int{11, 12, 13}, wantReason: "beyond --max-replays 2", wantCode: store.ReasonMaxReplays},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newScanFixture(t, tc.registered)
			req := scanRequest()
			req.Replay = tc.replay
			if tc.maxReplays > 0 {
				req.MaxReplays = tc.maxReplays
			}
			ts := f.scan(t, req)
			if len(ts.Missed) != 5 || ts.Replayed != len(tc.wantRuns) || ts.Expired != len(tc.wantDrops) || ts.Skipped != 0 {
				t.Fatalf("missed %d, replayed %d, expired %d, skipped %d; want 5, %d, %d, 0", len(ts.Missed), ts.Replayed, ts.Expired, ts.Skipped, len(tc.wantRuns), len(tc.wantDrops))
			}
			if got, want := f.job.runs(t), append(hours("schedule", 10), hours("replay", tc.wantRuns...)...); !reflect.DeepEqual(got, want) {
				t.Errorf("job runs %q, want %q", got, want)
			}
			var drops []time.Time
			for _, r := range f.history(t) {
				if r.Status == store.StatusExpired {
					drops = append(drops, r.Slot)
					if r.Error != tc.wantReason || r.Trigger != store.TriggerReplay || r.Reason != tc.wantCode {
						t.Errorf("expiry of %v: %s %q (%s), want replay %q (%s)", r.Slot, r.Trigger, r.Error, r.Reason, tc.wantReason, tc.wantCode)
					}
				}
			}
			if want := slotTimes(t, tc.wantDrops...); !reflect.DeepEqual(drops, want) {
				t.Errorf("expiries recorded for %v, want %v", drops, want)
			}
			if tc.registered == "none" {
				return // none leaves its slots missed: nothing is settled
			}
			if again := f.scan(t, req); len(again.Missed) != 0 {
				t.Errorf("second scan found %v missed", again.Missed)
			}
		})
	}
}

func TestScanInterruptedRuns(t *testing.T) {
	t.Parallel()
	f := newScanFixture(t, "all")
	ctx := context.Background()
	add := func(hour int, host, boot string) int64 {
		slot := slotTimes(t, hour)[0]
		id, err := f.st.AddRun(ctx, store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusRunning,
			Attempt: 1, StartedAt: slot.Add(time.Second), Host: host, BootID: boot, PID: deadPID})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	rebooted := add(11, "testhost", "boot-0") // this host, an earlier boot
	vanished := add(12, "testhost", "boot-1") // this boot, but the task's lock is free
	// Another host name on a local ledger: this host, renamed since (a
	// SQLite ledger is one host's); this boot, and the task's lock is free.
	renamed := add(13, "oldname", "boot-1")
	ts := f.scan(t, scanRequest())
	if !reflect.DeepEqual(ts.Missed, slotTimes(t, 11, 12, 13, 14, 15)) {
		t.Errorf("missed %v, want 11 to 15", ts.Missed)
	}
	if got, want := f.job.runs(t), append(hours("schedule", 10), hours("replay", 11, 12, 13, 14, 15)...); !reflect.DeepEqual(got, want) {
		t.Errorf("job runs %q, want %q", got, want)
	}
	for id, want := range map[int64]string{rebooted: reasonRebooted, vanished: reasonVanished, renamed: reasonVanished} {
		r, err := f.st.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus := store.StatusInterrupted
		if want == "" {
			wantStatus = store.StatusRunning
		}
		if r.Status != wantStatus || r.Error != want {
			t.Errorf("run %d of %v: %s %q, want %s %q", id, r.Slot, r.Status, r.Error, wantStatus, want)
		}
	}
	if again := f.scan(t, scanRequest()); len(again.Missed) != 0 {
		t.Errorf("second scan found %v missed", again.Missed)
	}
}

func TestScanFailedReplay(t *testing.T) {
	t.Parallel()
	f := newScanFixture(t, "all")
	f.job.exitAt(t, slotTimes(t, 12)[0], 4)
	rep, err := Scan(context.Background(), f.st, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	ts := rep.Tasks[0]
	if !rep.Failed() || ts.Failed != 1 || ts.Replayed != 4 {
		t.Fatalf("failed %v (%d), replayed %d; want one failure and 4 replays", rep.Failed(), ts.Failed, ts.Replayed)
	}
	var failed []SlotAction
	for a := range ts.SlotActions() {
		if a.Action == ActionFailed {
			failed = append(failed, a)
		}
	}
	if len(failed) != 1 || !failed[0].Slot.Equal(slotTimes(t, 12)[0]) || failed[0].ExitCode != 4 || failed[0].RunID == 0 {
		t.Errorf("failed actions %+v, want 12:00 with exit 4 and its run", failed)
	}
	if again := f.scan(t, scanRequest()); len(again.Missed) != 0 {
		t.Errorf("a failed slot has an outcome: second scan found %v missed", again.Missed)
	}
	retry := scanRequest()
	retry.RetryFailed = true
	if again := f.scan(t, retry); !reflect.DeepEqual(again.Missed, slotTimes(t, 12)) || again.Failed != 1 {
		t.Errorf("--retry-failed: missed %v, failed %d; want 12:00 tried again", again.Missed, again.Failed)
	}
	if n := strings.Count(strings.Join(f.job.runs(t), "\n"), "T12:00:00Z"); n != 2 {
		t.Errorf("12:00 ran %d times, want 2", n)
	}
}

func TestScanDryRun(t *testing.T) {
	t.Parallel()
	f := newScanFixture(t, "latest")
	req := scanRequest()
	req.DryRun = true
	ts := f.scan(t, req)
	var actions []string
	for a := range ts.SlotActions() {
		actions = append(actions, a.Slot.Format("15")+" "+a.Action)
	}
	want := []string{"11 would expire", "12 would expire", "13 would expire", "14 would expire", "15 would replay"}
	if !reflect.DeepEqual(actions, want) {
		t.Errorf("plan %q, want %q", actions, want)
	}
	if n := len(f.history(t)); n != 1 || len(f.job.runs(t)) != 1 {
		t.Errorf("a dry run wrote %d runs or ran the job", n-1)
	}
	if ts := f.scan(t, scanRequest()); ts.Replayed != 1 || ts.Expired != 4 {
		t.Errorf("the real scan after: replayed %d, expired %d; want 1 and 4", ts.Replayed, ts.Expired)
	}
}

func TestScanNamedTasks(t *testing.T) {
	t.Parallel()
	f := newScanFixture(t, "all")
	tests := map[string]struct {
		tasks   []string
		wantErr string
	}{
		"unknown task": {tasks: []string{"nope"}, wantErr: `no task "nope" in the ledger; catchup ls lists them`},
		"a named task": {tasks: []string{"job"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			req := scanRequest()
			req.Tasks, req.DryRun = tc.tasks, true
			_, err := Scan(context.Background(), f.st, f.m, req)
			if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Scan = %v, want error %q", err, tc.wantErr)
			}
		})
	}
}
