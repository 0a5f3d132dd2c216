package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestWritesOfALiveTaskRefuseItRetired: a scan's or a prune's write of a
// task as read (AddRunsOf, SetSettledOf, given store.Of with Live)
// refuses, in its transaction, a task retired since (`catchup forget`):
// nothing is recorded, the watermark stays, and ErrRetired is returned;
// the task read and written live is written. A write of a task being
// retired (Live false: forget's records, the daemon's of a removed line,
// after it retired the task) is written, and a registration given checks
// only the purge (ErrGone) there.
func TestWritesOfALiveTaskRefuseItRetired(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			retired bool
			of      store.Of
			want    error
		}{
			"live, retired since":          {retired: true, of: store.OfLive(t0), want: store.ErrRetired},
			"live, as read":                {of: store.OfLive(t0)},
			"being retired, retired since": {retired: true, of: store.Of{Registered: t0}},
			"unchecked, retired":           {retired: true},
		}
		s := be.open(t, be.ledger(t))
		i := 0
		for name, tc := range tests {
			i++
			task := "t" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				settled := t0.Add(-time.Second)
				if err := s.UpsertTask(t.Context(), store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: t0,
					UpdatedAt: t0, SettledThrough: settled}); err != nil {
					t.Fatal(err)
				}
				if tc.retired {
					if _, err := s.Forget(t.Context(), task, t0.Add(3*time.Hour), false); err != nil {
						t.Fatal(err)
					}
				}
				now := t0.Add(4 * time.Hour)
				rec := store.Run{Task: task, Slot: t0.Add(time.Hour), Trigger: store.TriggerReplay, Status: store.StatusPaused,
					Attempt: 1, StartedAt: now, EndedAt: now, Host: "h", PID: 1}
				ids, err := s.AddRunsOf(t.Context(), tc.of, []store.Run{rec})
				if !errors.Is(err, tc.want) || tc.want == nil && err != nil {
					t.Fatalf("AddRunsOf: %v, ids %v; want %v", err, ids, tc.want)
				}
				through := t0.Add(2 * time.Hour)
				if err := s.SetSettledOf(t.Context(), task, tc.of, through); !errors.Is(err, tc.want) || tc.want == nil && err != nil {
					t.Fatalf("SetSettledOf: %v; want %v", err, tc.want)
				}
				hist, err := s.History(t.Context(), store.HistoryFilter{Task: task, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				cur, err := s.Task(t.Context(), task)
				if err != nil {
					t.Fatal(err)
				}
				wantRuns, wantSettled := 1, through
				if tc.want != nil {
					wantRuns, wantSettled = 0, settled
				}
				if len(hist) != wantRuns {
					t.Errorf("the ledger holds %d runs of %s: %+v; want %d", len(hist), task, hist, wantRuns)
				}
				if !cur.SettledThrough.Equal(wantSettled) {
					t.Errorf("watermark %s; want %s", cur.SettledThrough.UTC().Format(time.RFC3339), wantSettled.UTC().Format(time.RFC3339))
				}
				if tc.retired && cur.RetiredAt.IsZero() {
					t.Errorf("task %s is no longer retired; want it still retired", task)
				}
			})
		}
	})
}

// TestUpsertTaskOfRefusesATaskRetiredSinceRead: a registration of a task
// as read (a scan's of its crontab line, edited or not; UpsertTaskOf
// given store.OfLive) refuses, in its transaction, a task retired since
// (`catchup forget`): the row stays as forget left it (retired, its
// watermark and schedule), and ErrRetired is returned; a task purged
// since, or purged and registered again, is refused as ErrGone (not
// written back). A task read live and still so is written; a zero Of
// writes as UpsertTask does (a retired task registered anew). Before, the
// write revived the retired task with its old registration and watermark.
func TestUpsertTaskOfRefusesATaskRetiredSinceRead(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			retired, purged, again bool
			of                     store.Of
			want                   error
		}{
			"live, retired since":         {retired: true, of: store.OfLive(t0), want: store.ErrRetired},
			"live, purged since":          {purged: true, of: store.OfLive(t0), want: store.ErrGone},
			"live, purged and registered": {purged: true, again: true, of: store.OfLive(t0), want: store.ErrGone},
			"live, as read":               {of: store.OfLive(t0)},
			"unchecked, retired: revived": {retired: true},
		}
		s := be.open(t, be.ledger(t))
		i := 0
		for name, tc := range tests {
			i++
			task := "u" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				ctx := t.Context()
				settled := t0.Add(-time.Second)
				old := store.Task{Name: task, Schedule: "0 * * * *", TZ: "UTC", Shell: "true", Source: "crontab:/c:1",
					RegisteredAt: t0, UpdatedAt: t0, SettledThrough: settled}
				if err := s.UpsertTask(ctx, old); err != nil {
					t.Fatal(err)
				}
				switch {
				case tc.retired:
					if _, err := s.Forget(ctx, task, t0.Add(3*time.Hour), false); err != nil {
						t.Fatal(err)
					}
				case tc.purged:
					if _, err := s.Forget(ctx, task, t0.Add(3*time.Hour), true); err != nil {
						t.Fatal(err)
					}
					if tc.again {
						again := old
						again.RegisteredAt, again.UpdatedAt, again.SettledThrough = t0.Add(3*time.Hour), t0.Add(3*time.Hour), t0.Add(3*time.Hour-time.Second)
						if err := s.UpsertTask(ctx, again); err != nil {
							t.Fatal(err)
						}
					}
				}
				before, beforeErr := s.Task(ctx, task)
				edited := old
				edited.Schedule, edited.UpdatedAt, edited.SettledThrough = "30 * * * *", t0.Add(4*time.Hour), t0.Add(4*time.Hour-time.Second)
				err := s.UpsertTaskOf(ctx, tc.of, edited)
				if !errors.Is(err, tc.want) || tc.want == nil && err != nil {
					t.Fatalf("UpsertTaskOf: %v; want %v", err, tc.want)
				}
				cur, curErr := s.Task(ctx, task)
				if tc.want == nil {
					if curErr != nil || cur.Schedule != edited.Schedule || !cur.RetiredAt.IsZero() {
						t.Errorf("task after the write: %+v, %v; want it registered %q, not retired", cur, curErr, edited.Schedule)
					}
					return
				}
				if (beforeErr == nil) != (curErr == nil) {
					t.Fatalf("task after the refused write: %v; before it: %v", curErr, beforeErr)
				}
				if curErr == nil && (cur.Schedule != before.Schedule || !cur.SettledThrough.Equal(before.SettledThrough) ||
					!cur.RetiredAt.Equal(before.RetiredAt) || !cur.RegisteredAt.Equal(before.RegisteredAt)) {
					t.Errorf("task after the refused write: %+v; want it as it was: %+v", cur, before)
				}
			})
		}
	})
}
