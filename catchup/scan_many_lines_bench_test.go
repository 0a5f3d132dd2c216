package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/crontab"
)

// BenchmarkScanManyLines: a root dry-run scan of a crontab of N catchup
// lines, each its own task. cpu-µs/line (the process's CPU, whatever else
// the machine runs), B/op per line and peak-heap-KB/line must stay flat as
// N grows, up to the most a crontab file may hold (a crontab of 267,000
// such lines, 15 MB, under the 16 MiB cap, took a scan minutes and
// gigabytes: it is refused now, TestCrontabCatchupLinesCapped). Here, on
// 2 busy cores: 270-550 cpu-µs, 30-43 KB allocated and 7-11 KB of peak heap
// a line, so the largest crontab a scan reads costs it a few s of CPU.
func BenchmarkScanManyLines(b *testing.B) {
	for _, n := range []int{1000, 3000, crontab.MaxCatchupLines} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := newRunFixture(b, "2026-03-01T09:30:00Z")
			path := filepath.Join(b.TempDir(), "crontab")
			if err := os.WriteFile(path, []byte(catchupLines(n)), 0o600); err != nil {
				b.Fatal(err)
			}
			req := scanRequest()
			req.DryRun = true
			req.Crontabs = []CrontabSource{{Name: path, Path: path}}
			b.ReportAllocs()
			var peak uint64
			cpu0 := processCPU()
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				stop := samplePeakHeap(&peak)
				b.StartTimer()
				rep, err := Scan(context.Background(), f.st, f.m, req)
				b.StopTimer()
				stop()
				if err != nil || len(rep.Tasks) != n {
					b.Fatalf("scan: %d tasks, %v; want %d", len(rep.Tasks), err, n)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Microsecond)/float64(b.N)/float64(n), "cpu-µs/line")
			b.ReportMetric(float64(peak)/1024/float64(n), "peak-heap-KB/line")
		})
	}
}

// catchupLines is a crontab of n catchup lines, tasks t0..t(n-1).
func catchupLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "0 * * * * catchup run --task t%d -- echo hello%d\n", i, i)
	}
	return b.String()
}

// processCPU is the CPU time this process has used (user and system):
// what a scan costs, whatever else the machine runs meanwhile.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
