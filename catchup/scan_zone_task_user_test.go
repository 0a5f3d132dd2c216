package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRootScanZoneFileAsTaskUser: a root scan reads a task's zone file
// with its user's rights, as root's readers do, where no crontab line says
// who that is: a crontab task whose line is gone (read as nobody), another
// user's `catchup run --cron` task (its registrant). One that user cannot
// read leaves the task alone, said once, exit 1: no slot counted left, none
// recorded expired, the gone line not retired. Before, scan read it as
// root: it retired the gone line's task, recording its 48 slots expired in
// the zone only root could read, on a ledger that user reads.
func TestRootScanZoneFileAsTaskUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it reads zone files as nobody")
	}
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	top, zone, _ := privateZone(t)
	ctx := context.Background()
	since := f.now.Add(-48 * time.Hour)
	for _, task := range []store.Task{
		{Name: "gone", Source: "crontab:" + filepath.Join(top, "no-such-crontab") + ":2", Shell: "/bin/sh", Argv: []string{"/bin/sh", "-c", "true"}},
		{Name: "run-uid", Source: "run:uid=65534", Argv: []string{"true"}},
	} {
		task.Schedule, task.TZ, task.Replay, task.RegisteredAt = "0 * * * *", zone, "all", since
		if err := f.st.UpsertTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	for _, dry := range []bool{true, false} {
		req := scanRequest()
		req.DryRun = dry
		rep, err := Scan(ctx, f.st, f.m, req)
		if err != nil {
			t.Fatal(err)
		}
		var scanned []string
		for _, ts := range rep.Tasks {
			scanned = append(scanned, fmt.Sprintf("%s (%d missed, %d expired, %d left)", ts.Task, len(ts.Missed), ts.Expired, ts.Left))
		}
		if len(scanned) != 0 || !rep.Failed() {
			t.Errorf("dry run %v: scanned %q, failed %v; want no task scanned, exit 1", dry, scanned, rep.Failed())
		}
		for _, name := range []string{"gone", "run-uid"} {
			if !strings.Contains(strings.Join(rep.Warnings, "\n"), "task "+name+": unknown time zone") {
				t.Errorf("dry run %v: warnings %q; want task %s's zone unknown", dry, rep.Warnings, name)
			}
		}
	}
	runs, err := f.st.History(ctx, store.HistoryFilter{Limit: 1000})
	if err != nil || len(runs) != 0 {
		t.Errorf("%d records, %v; want none (no slot expired in that zone)", len(runs), err)
	}
	if gone, err := f.st.Task(ctx, "gone"); err != nil || !gone.RetiredAt.IsZero() {
		t.Errorf("task gone: retired %v, %v; want it left", gone.RetiredAt, err)
	}
}
