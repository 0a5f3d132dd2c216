package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// forgetAtReplay is a ledger on which `catchup forget` of task name
// commits at the first replay's claim.
type forgetAtReplay struct {
	store.Store
	t       *testing.T
	m       catchup.Machine
	name    string
	retired bool
}

func (f *forgetAtReplay) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if !f.retired && req.Run.Trigger == store.TriggerReplay {
		f.retired = true
		if _, err := catchup.Forget(ctx, f.Store, f.m, catchup.ForgetRequest{Task: f.name}); err != nil {
			f.t.Fatalf("forget: %v", err)
		}
	}
	return f.Store.Claim(ctx, req)
}

// TestDaemonReplayAfterAForgetKeepsItRetired: a forget that commits during
// the daemon's replays of a task leaves it retired: a replay is no fire
// (T1), its claim registers nothing, no slot runs, and the daemon's next
// scan of it replays nothing either. The daemon's own fires (and a reload
// of a line it owns) are what register it again.
func TestDaemonReplayAfterAForgetKeepsItRetired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "job", "all", slot.Add(-time.Minute))
	*f.now = slot.Add(5 * time.Minute) // 10:00 to 10:04 missed
	racing := &forgetAtReplay{Store: f.st, t: t, m: f.d.cfg.Machine, name: "job"}
	f.d.cfg.Store = racing
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	if !racing.retired {
		t.Fatalf("the forget never came: the daemon's scan claimed no replay; log:\n%s", f.logs.String())
	}
	*f.now = slot.Add(10 * time.Minute)
	f.d.scan(ctx, f.task, time.Time{}, time.Time{})
	if got := f.fires(); strings.Contains(got, "replay") {
		t.Errorf("the job ran %q after the task was retired; want no replay", got)
	}
	task, err := f.st.Task(ctx, "job")
	if err != nil {
		t.Fatal(err)
	}
	if task.RetiredAt.IsZero() {
		t.Errorf("task job is registered again (as of %s) by the daemon's replays; want it still retired",
			task.RegisteredAt.Format(time.RFC3339))
	}
}
