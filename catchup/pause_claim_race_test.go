package catchup

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// pauseBeforeClaim is a ledger on which `catchup pause job`, on a host
// whose clock reads 10:30, commits just before the second replay's claim:
// after the scan last read the task, before the replay claims its slot.
type pauseBeforeClaim struct {
	store.Store
	t      *testing.T
	m      Machine
	claims int
}

func (p *pauseBeforeClaim) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if req.Run.Trigger == store.TriggerReplay {
		if p.claims++; p.claims == 2 {
			if _, err := Pause(ctx, p.Store, p.m, PauseRequest{Task: "job"}); err != nil {
				p.t.Fatalf("pause: %v", err)
			}
		}
	}
	return p.Store.Claim(ctx, req)
}

// TestPauseBeforeAReplaysClaimRunsNothing: a pause that commits between
// the scan's last read of the task and a replay's claim holds from its
// start (T4): the claim refuses the slot of the pause, nothing runs, and
// the scan leaves it and the later ones to the next scan, which records
// them paused. Before, the claim granted it and the slot of the pause ran.
func TestPauseBeforeAReplaysClaimRunsNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			var st store.Store = f.st
			if backend == "postgres" {
				st = testPostgres(t)
			}
			if _, err := Run(ctx, st, nil, f.m, f.request(t)); err != nil {
				t.Fatalf("Run: %v", err)
			}
			pauser := f.m
			pauser.Now = func() time.Time { return mustTime(t, "2026-03-01T10:30:00Z") }
			f.now = mustTime(t, "2026-03-01T12:30:00Z")
			racing := &pauseBeforeClaim{Store: st, t: t, m: pauser}
			rep, err := Scan(ctx, racing, f.m, scanRequest())
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			if racing.claims < 2 {
				t.Fatalf("the scan claimed %d replays; the pause comes before the second", racing.claims)
			}
			want := []string{"2026-03-01T09:00:00Z schedule", "2026-03-01T10:00:00Z replay"}
			if runs := f.job.runs(t); strings.Join(runs, "|") != strings.Join(want, "|") {
				t.Errorf("the job ran %q; want %q (11:00 and 12:00 are slots of the pause)", runs, want)
			}
			why := "task job was paused during this scan's replays"
			if len(rep.Tasks) != 1 || rep.Tasks[0].Left != 2 || !strings.Contains(strings.Join(rep.Tasks[0].Warnings, "\n"), why) {
				t.Errorf("scan reported %+v; want 2 slots left for the next scan, with a warning %q", rep.Tasks, why)
			}
			next, err := Scan(ctx, st, f.m, scanRequest())
			if err != nil {
				t.Fatalf("next scan: %v", err)
			}
			if len(next.Tasks) != 1 || next.Tasks[0].Paused != 2 || next.Tasks[0].Replayed != 0 {
				t.Errorf("next scan reported %+v; want the 2 slots of the pause recorded paused, none replayed", next.Tasks)
			}
		})
	}
}
