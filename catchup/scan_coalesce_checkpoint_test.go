package catchup

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestCoalescedReplayGetsNoNarrowerCheckpoint: a slot's run that was cut
// short saved a checkpoint for its own interval. A coalesced replay of that
// slot is told a wider gap (CATCHUP_PREV_SLOT earlier): resuming from the
// narrower run's checkpoint would skip the start of the wider gap, silently.
// It starts afresh. A replay told the slot's own interval still resumes.
func TestCoalescedReplayGetsNoNarrowerCheckpoint(t *testing.T) {
	t.Parallel()
	for name, policy := range map[string]string{"coalesce, a wider gap": "coalesce", "all, its own interval": "all"} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			req := f.request(t)
			req.Replay = policy
			req.Argv = []string{"sh", "-c", `echo "$CATCHUP_SLOT after $CATCHUP_PREV_SLOT ck=$CATCHUP_CHECKPOINT" >> ck.log`}
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			// 11:00 missed; 12:00's run got as far as "row 2" and was cut.
			slot := mustTime(t, "2026-03-01T12:00:00Z")
			c, err := f.st.Claim(context.Background(), store.ClaimRequest{Run: store.Run{Task: "job", Slot: slot,
				Trigger: store.TriggerSchedule, Attempt: 1, StartedAt: slot, Host: f.m.Host, PID: deadPID, BootID: f.m.BootID}})
			if err != nil || !c.Claimed {
				t.Fatalf("claim: %+v, %v", c, err)
			}
			if err := f.st.SetProgress(context.Background(), c.Run.ID, 40, "row 2"); err != nil {
				t.Fatal(err)
			}
			if _, err := f.st.Interrupt(context.Background(), c.Run.ID, slot.Add(time.Minute), "power cut"); err != nil {
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-01T12:30:00Z")
			f.scan(t, scanRequest())
			b, err := os.ReadFile(filepath.Join(f.job.dir, "ck.log"))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"coalesce": "2026-03-01T10:00:00Z after 2026-03-01T09:00:00Z ck=\n" +
					"2026-03-01T12:00:00Z after 2026-03-01T10:00:00Z ck=\n",
				"all": "2026-03-01T10:00:00Z after 2026-03-01T09:00:00Z ck=\n" +
					"2026-03-01T11:00:00Z after 2026-03-01T10:00:00Z ck=\n" +
					"2026-03-01T12:00:00Z after 2026-03-01T11:00:00Z ck=row 2\n",
			}[policy]
			if string(b) != want {
				t.Errorf("the job was told:\n%s\nwant:\n%s", b, want)
			}
		})
	}
}
