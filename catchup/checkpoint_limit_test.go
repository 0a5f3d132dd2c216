package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReplayDropsUnpassableCheckpoint: a ledger written by an older catchup
// (or by another host's, through PostgreSQL) may hold a checkpoint that
// cannot be passed to a job as CATCHUP_CHECKPOINT: longer than one
// environment string may be (exec fails with E2BIG), or with a NUL byte.
// The replay must still run the job, afresh and with a notice, not fail
// to start it (which recorded the slot failed without the job having run).
func TestReplayDropsUnpassableCheckpoint(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		note   string
		passed bool
	}{
		"at the limit, passed":             {note: strings.Repeat("a", MaxCheckpoint), passed: true},
		"over the limit":                   {note: strings.Repeat("a", MaxCheckpoint+1)},
		"over exec's limit for one string": {note: strings.Repeat("a", 131065)},
		"with a NUL byte":                  {note: "row\x002"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			var mu sync.Mutex
			var notices []string
			f.m.Notice = func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				notices = append(notices, fmt.Sprintf(format, args...))
			}
			req := f.request(t)
			req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT resumed=${CATCHUP_RESUMED:-0} ck=${#CATCHUP_CHECKPOINT}" >> ck.log`}
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			slot := mustTime(t, "2026-03-01T11:00:00Z")
			c, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Slot: slot,
				Trigger: store.TriggerSchedule, Attempt: 1, StartedAt: slot, Host: f.m.Host, PID: deadPID, BootID: f.m.BootID}})
			if err != nil || !c.Claimed {
				t.Fatalf("claim: %+v, %v", c, err)
			}
			if err := f.st.SetProgress(context.Background(), c.Run.ID, 50, tc.note); err != nil {
				t.Fatal(err)
			}
			if _, err := f.st.Interrupt(context.Background(), c.Run.ID, slot.Add(time.Minute), "power cut"); err != nil {
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-01T11:30:00Z")
			ts := f.scan(t, scanRequest())
			if ts.Replayed != 1 || ts.Failed != 0 {
				t.Errorf("scan replayed %d, failed %d (%+v); want the slot replayed", ts.Replayed, ts.Failed, ts.Actions)
			}
			b, err := os.ReadFile(filepath.Join(f.job.dir, "ck.log"))
			if err != nil {
				t.Fatalf("the job never ran: %v (notices: %q)", err, notices)
			}
			want := "2026-03-01T11:00:00Z resumed=0 ck=0\n"
			if tc.passed {
				want = fmt.Sprintf("2026-03-01T11:00:00Z resumed=1 ck=%d\n", len(tc.note))
			}
			if got := strings.TrimPrefix(string(b), "2026-03-01T10:00:00Z resumed=0 ck=0\n"); got != want {
				t.Errorf("the replay was told %q, want %q", got, want)
			}
			said := strings.Join(notices, "\n")
			if dropped := strings.Contains(said, "starts afresh"); dropped == tc.passed {
				t.Errorf("notices %q: a dropped checkpoint said so: %v, want %v", said, dropped, !tc.passed)
			}
			if strings.Contains(said, "aaaa") {
				t.Errorf("a notice quotes the checkpoint: %.200q", said)
			}
		})
	}
}
