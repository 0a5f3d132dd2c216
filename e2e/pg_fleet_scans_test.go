package e2e

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fleetScanTask is a task of TestFleetScansAtOnce: its schedule, its
// replay policy, and when its registering fire ran.
type fleetScanTask struct {
	name, cron, replay, registered string
}

// TestFleetScansAtOnce: three hosts run `scan --concurrency 4` at the same
// instant over tasks with many missed slots (hourly and every minute, a
// coalesce and a latest task among them), their clocks the same or 40 s
// apart, and one more scan after them (a slot a scan found held by
// another's replay is left, with its later ones, to the next scan).
// Counted by the jobs' own lines: no slot ran twice in the whole fleet, a
// task's slots ran oldest first, every slot of an `all` task up to the
// leading clock's tolerance ran, the coalesce and latest tasks ended on
// that newest slot, and nothing is missed after them. Before, a coalesced
// replay whose gap's slot another host's replay (of an older latest slot)
// claimed first ran at once for its own slot, before that one.
func TestFleetScansAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("three scans of a hundred replays; skipped with -short")
	}
	for _, tc := range []struct {
		name   string
		clocks [3]string // host-a, host-b, host-c
	}{
		{"same clock", [3]string{"2026-11-20T05:30:30Z", "2026-11-20T05:30:30Z", "2026-11-20T05:30:30Z"}},
		{"clocks 40s apart", [3]string{"2026-11-20T05:30:30Z", "2026-11-20T05:31:10Z", "2026-11-20T05:29:50Z"}},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) { fleetScansAtOnce(t, tc.clocks) })
	}
}

func fleetScansAtOnce(t *testing.T, clocks [3]string) {
	db := pgLedger(t)
	ran := filepath.Join(t.TempDir(), "ran.log")
	job := `echo "$CATCHUP_TASK $CATCHUP_SLOT $CATCHUP_HOST" >> ` + ran + `; sleep 0.02`
	tasks := []fleetScanTask{
		{"h1", "0 * * * *", "all", "2026-11-20T00:00:05Z"},
		{"h2", "0 * * * *", "all", "2026-11-20T00:00:05Z"},
		{"h3", "30 * * * *", "all", "2026-11-20T00:30:05Z"},
		{"m1", "* * * * *", "all", "2026-11-20T05:00:05Z"},
		{"m2", "* * * * *", "all", "2026-11-20T05:00:05Z"},
		{"m3", "*/2 * * * *", "all", "2026-11-20T05:00:05Z"},
		{"co", "* * * * *", "coalesce", "2026-11-20T05:00:05Z"},
		{"la", "* * * * *", "latest", "2026-11-20T05:00:05Z"},
	}
	reg := fleetHost(t, db, "host-r")
	for _, tk := range tasks {
		p := reg.catchup(tk.registered, "run", "--task", tk.name, "--cron", tk.cron, "--tz", "UTC",
			"--replay", tk.replay, "--", "sh", "-c", job)
		if code := p.run(t); code != 0 {
			t.Fatalf("registering fire of %s: exit %d %s", tk.name, code, p.stderr.String())
		}
	}
	var procs []*catchupProc
	lead := clocks[0]
	// The hosts' clocks differ by up to 80 s: the lease must be longer
	// (docs/distributed.md). With the default minute, host-b took host-c's
	// live runs for dead by its clock and replayed their slots.
	lease := "--lease=3m"
	for i, name := range []string{"host-a", "host-b", "host-c"} {
		procs = append(procs, fleetHost(t, db, name).catchup(clocks[i], "scan", lease, "--concurrency", "4", "-v"))
		lead = max(lead, clocks[i])
	}
	var wg sync.WaitGroup
	codes := make([]int, len(procs))
	for i, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = p.run(t) }()
	}
	wg.Wait()
	for i, p := range procs {
		if codes[i] != 0 {
			t.Errorf("scan at %s exited %d: %s%s", clocks[i], codes[i], p.stdout.String(), p.stderr.String())
		}
	}
	leadAt, _ := time.Parse(time.RFC3339, lead)
	// A slot one scan found held by another's replay is left to the next
	// scan, with its later ones (said): one more scan replays them.
	after := fleetHost(t, db, "host-d").catchup(leadAt.Add(5*time.Second).Format(time.RFC3339), "scan", lease, "-v")
	if code := after.run(t); code != 0 {
		t.Errorf("the scan after them exited %d: %s%s", code, after.stdout.String(), after.stderr.String())
	}
	missedBy := leadAt.Add(-5 * time.Minute).Format(time.RFC3339) // the default --tolerance
	runs := map[string][]string{}                                 // task -> slots in the order they ran
	count := map[string]int{}
	for _, l := range readLines(t, ran) {
		f := strings.Fields(l)
		runs[f[0]] = append(runs[f[0]], f[1])
		count[f[0]+" "+f[1]]++
	}
	for _, tk := range tasks {
		got := runs[tk.name]
		if !sort.StringsAreSorted(got) {
			t.Errorf("%s ran its slots out of order: %v", tk.name, got)
		}
		for _, s := range got {
			if count[tk.name+" "+s] != 1 {
				t.Errorf("%s slot %s ran %d times, want once", tk.name, s, count[tk.name+" "+s])
			}
		}
		want := slotsOf(t, tk, missedBy)
		last := want[len(want)-1]
		if tk.replay == "all" && strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s ran %v, want each of %s..%s once", tk.name, got, want[0], last)
			logFleetScans(t, db, leadAt, tk.name, procs, after)
		}
		if len(got) < 2 || got[0] != want[0] || got[len(got)-1] != last {
			t.Errorf("%s (%s) ran %v, want its first slot first and %s last", tk.name, tk.replay, got, last)
		}
	}
	ls := newCatchup(t, db, leadAt.Add(10*time.Second).Format(time.RFC3339), "ls", "--missed")
	if code := ls.run(t); code != 0 {
		t.Errorf("ls --missed after the scans: exit %d %s%s", code, ls.stdout.String(), ls.stderr.String())
	}
}

// slotsOf lists the UTC slots of tk's cron from its registering fire's
// slot up to to, as RFC 3339 (minute and hour fields of the simple kinds
// the test uses: "* * * * *", "*/N * * * *", "M * * * *").
func slotsOf(t *testing.T, tk fleetScanTask, until string) []string {
	t.Helper()
	from, _ := time.Parse(time.RFC3339, tk.registered)
	to, _ := time.Parse(time.RFC3339, until)
	var out []string
	for s := from.Truncate(time.Minute); !s.After(to); s = s.Add(time.Minute) {
		min := strings.Fields(tk.cron)[0]
		var every, at int
		switch {
		case min == "*":
			every = 1
		case strings.HasPrefix(min, "*/"):
			fmt.Sscanf(min, "*/%d", &every)
		default:
			fmt.Sscanf(min, "%d", &at)
		}
		if (every > 0 && s.Minute()%every == 0) || (every == 0 && s.Minute() == at) {
			out = append(out, s.Format(time.RFC3339))
		}
	}
	return out
}

// logFleetScans logs what the ledger holds of task and what each scan
// said, for a failure that depends on how the hosts' scans met.
func logFleetScans(t *testing.T, db string, at time.Time, task string, scans []*catchupProc, after *catchupProc) {
	t.Helper()
	h := newCatchup(t, db, at.Add(10*time.Second).Format(time.RFC3339), "history", task, "--limit", "200", "-o", "wide")
	h.run(t)
	t.Logf("history of %s:\n%s%s", task, h.stdout.String(), h.stderr.String())
	for i, p := range append(scans, after) {
		t.Logf("scan %d said:\n%s%s", i, p.stdout.String(), p.stderr.String())
	}
}
