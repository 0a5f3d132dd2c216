package catchup

import (
	"context"
	"fmt"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestScanConcurrentTasks scans six tasks three at a time, through the
// whole of Scan (missed slots, their causes from the shared boot cache,
// the replays, the watermark): each task's report is in name order and
// each task's slots ran once, oldest first. Under -race it also exercises
// the state the tasks share (the boot cache locks; the ledger's own lock
// orders most of its uses, so -race alone would rarely catch it).
func TestScanConcurrentTasks(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	var names []string
	for i := range 6 {
		req := f.request(t)
		req.Task = fmt.Sprintf("job-%d", i)
		if res := f.run(t, req); res.ExitCode != 0 {
			t.Fatalf("registering %s: exit %d", req.Task, res.ExitCode)
		}
		names = append(names, req.Task)
	}
	f.now = mustTime(t, "2026-03-01T15:30:00Z")
	req := scanRequest()
	req.Concurrency = 3
	rep, err := Scan(context.Background(), f.st, f.m, req)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	if len(rep.Tasks) != len(names) {
		t.Fatalf("scanned %d tasks, want %d", len(rep.Tasks), len(names))
	}
	for i, ts := range rep.Tasks {
		if ts.Task != names[i] || ts.Replayed != 5 || ts.Failed+ts.Skipped+ts.Left != 0 {
			t.Errorf("report %d: %s replayed %d, failed %d, skipped %d, left %d; want %s replayed 5",
				i, ts.Task, ts.Replayed, ts.Failed, ts.Skipped, ts.Left, names[i])
		}
		runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: ts.Task, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var replays []string
		for j := len(runs) - 1; j >= 0; j-- {
			if runs[j].Trigger == store.TriggerReplay {
				replays = append(replays, runs[j].Slot.UTC().Format("15:04"))
			}
		}
		if got := fmt.Sprint(replays); got != "[11:00 12:00 13:00 14:00 15:00]" {
			t.Errorf("%s: replays %s, want 11:00 to 15:00 once each, in order", ts.Task, got)
		}
	}
}
