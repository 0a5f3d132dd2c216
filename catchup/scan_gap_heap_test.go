package catchup

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestScanReportOfALongGapIsCompact: the report of a scan of one
// every-minute task 10 days behind (14,395 missed slots: 100 replayed,
// the rest expired) holds well under 160 bytes of heap a slot. It held
// 318 when each expiry was a SlotAction (240 bytes); compactly kept
// (expiredLog), 87: the slots, their causes and their expiries. A
// gap of a year is half a million slots, and a host of 512 MB must finish
// its scan (docs/performance.md). The heap is read after a collection,
// before the scan and after it with its report still held: no timing, no
// sampling.
func TestScanReportOfALongGapIsCompact(t *testing.T) {
	// Serial: it measures the heap.
	if testing.Short() {
		t.Skip("records 14,395 expiries")
	}
	st, db := testLedger(t)
	now := mustTime(t, "2026-01-01T00:00:05Z")
	m := testMachine(db, now)
	m.Now = func() time.Time { return now }
	req := RunRequest{Task: "m", Schedule: mustSchedule(t, "* * * * *", "UTC"), TZ: "UTC", Replay: "all",
		Tolerance: 5 * time.Minute, Argv: []string{"true"}, Dir: t.TempDir()}
	if _, err := Run(context.Background(), st, nil, m, req); err != nil {
		t.Fatal(err)
	}
	now = now.Add(10 * 24 * time.Hour)
	before := liveHeap()
	rep, err := Scan(context.Background(), st, m, scanRequest())
	if err != nil {
		t.Fatal(err)
	}
	held := liveHeap() - min(before, liveHeap())
	ts := rep.Tasks[0]
	if len(ts.Missed) != 14395 || ts.Replayed != 100 || ts.Expired != 14295 {
		t.Fatalf("missed %d, replayed %d, expired %d; want 14395, 100, 14295", len(ts.Missed), ts.Replayed, ts.Expired)
	}
	perSlot := held / uint64(len(ts.Missed))
	t.Logf("the report holds %d bytes of heap a missed slot", perSlot)
	if perSlot > 160 {
		t.Errorf("the scan's report holds %d bytes of heap a missed slot (%d in all), want at most 160", perSlot, held)
	}
	runtime.KeepAlive(rep)
}

// liveHeap is the heap's live bytes, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
