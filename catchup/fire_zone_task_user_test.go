package catchup

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRootFireZoneFileAsTaskUser: a root fire of a task without --cron
// reads the schedule the task is registered with; where that is another
// user's task and its zone a file's path, it reads the file as that user
// (storedSchedule), as root's scan and readers do. One that user cannot
// read is an unknown zone: the registered schedule is ignored (said), and
// the fire stands for no slot of it. Before, the fire read it with root's
// rights and recorded the slot it stands for in that zone (09:00 in
// Asia/Tokyo), on a ledger the task's user reads. A zone file the user
// can read is read as before, and root's own task is root's to read.
func TestRootFireZoneFileAsTaskUser(t *testing.T) {
	t.Parallel()
	top, zone, public := privateZone(t)
	gone := "crontab:" + filepath.Join(top, "no-such-crontab") + ":2"
	for _, tc := range []struct {
		name, source, tz string
		slotted          bool // the fire stands for the slot of 09:00 in Asia/Tokyo
	}{
		{"registrant", "run:uid=65534", zone, false},
		{"gone line", gone, zone, false},
		{"registrant, a public file", "run:uid=65534", public, true},
		{"root's own", "run", zone, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newRunFixture(t, "2026-03-01T00:01:00Z") // 09:01 in Asia/Tokyo
			f.m.UID = 0
			var said []string
			f.m.Notice = func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
			task := store.Task{Name: "job", Schedule: "0 9 * * *", TZ: tc.tz, Replay: "all", Source: tc.source,
				Argv: f.job.argv(), RegisteredAt: f.now.Add(-48 * time.Hour)}
			if err := f.st.UpsertTask(ctx, task); err != nil {
				t.Fatal(err)
			}
			req := f.request(t)
			req.Schedule, req.TZ = nil, ""
			f.run(t, req)
			runs := f.history(t)
			if len(runs) != 1 {
				t.Fatalf("%d runs; want the fire's", len(runs))
			}
			want := time.Time{}
			if tc.slotted {
				want = mustTime(t, "2026-03-01T00:00:00Z")
			}
			if !runs[0].Slot.Equal(want) {
				t.Errorf("the fire stands for slot %v (%s); want %v (said %q)", runs[0].Slot, runs[0].Trigger, want, said)
			}
			if ignored := strings.Contains(fmt.Sprint(said), "registered schedule ignored: unknown time zone"); ignored == tc.slotted {
				t.Errorf("said %q; want the registered schedule ignored: %v", said, !tc.slotted)
			}
		})
	}
}
