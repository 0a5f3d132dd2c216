package catchup

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// BenchmarkScanLongGap: one every-minute task 30 days behind (43,195
// missed slots: 100 replayed, the rest expired). Its peak-heap-MB is the
// most the scan held at once (sampled each millisecond): it grows with the
// gap, and a gap of a year on a small host must fit (docs/performance.md).
func BenchmarkScanLongGap(b *testing.B) {
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		st, db := testLedger(b)
		now := mustTime(b, "2026-01-01T00:00:05Z")
		m := testMachine(db, now)
		m.Now = func() time.Time { return now }
		req := RunRequest{Task: "m", Schedule: mustSchedule(b, "* * * * *", "UTC"), TZ: "UTC", Replay: "all",
			Tolerance: 5 * time.Minute, Argv: []string{"true"}, Dir: b.TempDir()}
		if _, err := Run(context.Background(), st, nil, m, req); err != nil {
			b.Fatal(err)
		}
		now = now.Add(30 * 24 * time.Hour)
		runtime.GC()
		stop := samplePeakHeap(&peak)
		b.StartTimer()
		rep, err := Scan(context.Background(), st, m, scanRequest())
		b.StopTimer()
		stop()
		if err != nil {
			b.Fatal(err)
		}
		// 30 days of minutes, less those still within the tolerance.
		if ts := rep.Tasks[0]; len(ts.Missed) != 43195 || ts.Replayed != 100 || ts.Expired != 43095 {
			b.Fatalf("missed %d, replayed %d, expired %d; want 43195, 100, 43095", len(ts.Missed), ts.Replayed, ts.Expired)
		}
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// samplePeakHeap raises *peak to the live heap's size each millisecond
// until the returned stop is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
