package catchup

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestDuplicateNamesTheHoldersRecord: a fire finds its slot claimed by a
// twin's run, running when read, which the twin then records otherwise
// before the duplicate is recorded. The duplicate's notice names the
// record as it stands then (three replicas on one PostgreSQL ledger logged
// both cases):
//   - skipped (exit 75: the twin's own lock skip, it ran nothing): it said
//     "it is running (run N on HOST)";
//   - interrupted (a stop cut the twin's job short): it said "it already
//     interrupted (run N)", as if the slot were settled; an interrupted run
//     settles nothing, and a scan (a daemon's rescan) replays the slot.
func TestDuplicateNamesTheHoldersRecord(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		status   string
		code     int
		want     string // with the run's id and host
		wantNone string
	}{
		"skipped since": {status: store.StatusSkipped, code: exitLocked,
			want: "recorded skipped (run %d on %s, exit 75", wantNone: "is running"},
		"interrupted since": {status: store.StatusInterrupted, code: 143,
			want: "it was claimed by run %d on %s, since interrupted: the next scan replays the slot", wantNone: "already interrupted"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			slot := mustTime(t, "2026-03-01T10:00:00Z")
			twin, err := openTaskLock(f.m.LockDir, "job", f.m.UID)
			if err != nil {
				t.Fatal(err)
			}
			defer twin.close()
			if ok, err := twin.tryLock(); err != nil || !ok {
				t.Fatalf("twin's lock: %v, %v", ok, err)
			}
			run := store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Attempt: 1, StartedAt: f.now,
				Host: f.m.Host, PID: os.Getpid(), BootID: f.m.BootID}
			c, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: run})
			if err != nil || !c.Claimed {
				t.Fatalf("the twin's claim: %+v, %v", c, err)
			}
			ledger := &afterFirstRead{Store: f.st, act: func() { // the twin's run ends so
				code := tc.code
				if err := f.st.Finish(context.Background(), c.Run.ID, store.Outcome{Status: tc.status,
					ExitCode: &code, EndedAt: f.now}); err != nil {
					t.Error(err)
				}
			}}
			var notices []string
			f.m.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
			req := f.request(t)
			req.OnBusy = "skip"
			if _, err := Run(context.Background(), ledger, nil, f.m, req); err != nil {
				t.Fatal(err)
			}
			said := strings.Join(notices, "\n")
			if !strings.Contains(said, "duplicate fire of slot") {
				t.Fatalf("no duplicate notice:\n%s", said)
			}
			want := fmt.Sprintf(tc.want, c.Run.ID, f.m.Host)
			if strings.Contains(said, tc.wantNone) || !strings.Contains(said, want) {
				t.Errorf("the notice is\n%s\nwant the holder named as what it is: %s", said, want)
			}
		})
	}
}
