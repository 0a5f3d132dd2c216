package catchup

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// ranAllBeforeClaim is a ledger on which another scan replays all of a
// task's slots (succeeded) between this scan's read of the task and its
// first claim: the boot unit's scan and the timer's, started together.
type ranAllBeforeClaim struct {
	store.Store
	slots []time.Time
	done  bool
}

func (d *ranAllBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !d.done && req.Run.Trigger == store.TriggerReplay {
		d.done = true
		code := 0
		for _, s := range d.slots {
			if _, err := d.Store.AddRun(ctx, store.Run{Task: req.Run.Task, Slot: s, Trigger: store.TriggerReplay,
				Status: store.StatusSucceeded, Attempt: 1, ExitCode: &code, StartedAt: req.Run.StartedAt,
				EndedAt: req.Run.StartedAt, Host: "b"}); err != nil {
				return store.ClaimResult{}, err
			}
		}
	}
	return d.Store.Claim(ctx, req)
}

// TestScanLosingARaceSaysItOnce: a scan whose task's slots another scan
// ran after this one read them runs none again (exit 0), and says so once
// for the task, naming how many slots, in a scan's words: not once per
// slot, and not with run's "--force to run anyway" (scan has no --force).
func TestScanLosingARaceSaysItOnce(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	var slots []time.Time
	for h := 11; h <= 15; h++ {
		slots = append(slots, mustTime(t, fmt.Sprintf("2026-03-01T%02d:00:00Z", h)))
	}
	var said []string
	f.m.Notice = func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	ledger := &ranAllBeforeClaim{Store: f.st, slots: slots}
	rep, err := Scan(context.Background(), ledger, f.m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !ledger.done {
		t.Fatal("the other scan never came in")
	}
	if got := f.job.runs(t); len(got) != 1 {
		t.Errorf("the job ran %d times, want once (the registering fire): %q", len(got), got)
	}
	ts := rep.Tasks[0]
	if len(ts.Missed) != 5 || ts.Replayed != 0 || ts.Failed != 0 || ts.Skipped != 5 || rep.Failed() {
		t.Errorf("missed %d, replayed %d, failed %d, skipped %d, failed scan %v; want 5, 0, 0, 5, false",
			len(ts.Missed), ts.Replayed, ts.Failed, ts.Skipped, rep.Failed())
	}
	said = append(said, ts.Warnings...)
	for _, s := range said {
		if strings.Contains(s, "--force") {
			t.Errorf("scan says %q: scan has no --force", s)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "5 missed slots") || !strings.Contains(said[0], "another scan") {
		t.Errorf("scan said %d lines:\n%s\nwant one for the task, naming its 5 missed slots and that another scan or a fire ran them",
			len(said), strings.Join(said, "\n"))
	}
}
