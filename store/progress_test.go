package store_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// progressOf renders a run's progress for messages and comparisons.
func progressOf(r store.Run) any {
	if r.Progress == nil {
		return nil
	}
	return *r.Progress
}

func TestSetProgress(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		if r := getRun(t, s, id); r.Progress != nil || r.Checkpoint != "" {
			t.Fatalf("new run: Progress %v, Checkpoint %q; want none", progressOf(r), r.Checkpoint)
		}
		steps := []struct {
			percent  int
			note     string
			wantNote string
		}{
			{0, "", ""},
			{10, "copied /home", "copied /home"},
			{40, "", "copied /home"}, // an empty note keeps the last one
			{100, "copied /srv — ☃", "copied /srv — ☃"},
		}
		for _, st := range steps {
			if err := s.SetProgress(ctx, id, st.percent, st.note); err != nil {
				t.Fatalf("SetProgress(%d, %q): %v", st.percent, st.note, err)
			}
			r := getRun(t, s, id)
			if r.Progress == nil || *r.Progress != st.percent || r.Checkpoint != st.wantNote || r.Status != store.StatusRunning {
				t.Errorf("after SetProgress(%d, %q): Progress %v, Checkpoint %q, Status %s", st.percent, st.note,
					progressOf(r), r.Checkpoint, r.Status)
			}
		}
		want := getRun(t, s, id)
		want.StdoutTail, want.StderrTail = nil, nil
		// Every reader returns both.
		check := func(what string, runs []store.Run) {
			t.Helper()
			for _, r := range runs {
				if r.ID == id {
					if !sameRun(r, want) {
						t.Errorf("%s:\n got %+v\nwant %+v", what, r, want)
					}
					return
				}
			}
			t.Errorf("%s: run %d missing", what, id)
		}
		running, err := s.Running(ctx)
		if err != nil {
			t.Fatal(err)
		}
		check("Running", running)
		hist, err := s.History(ctx, store.HistoryFilter{Task: "backup"})
		if err != nil {
			t.Fatal(err)
		}
		check("History", hist)
		slotRuns, err := s.SlotRuns(ctx, "backup", t0, t0, 0)
		if err != nil {
			t.Fatal(err)
		}
		check("SlotRuns", slotRuns)
		sums, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 1 || sums[0].Latest == nil {
			t.Fatalf("Tasks = %+v", sums)
		}
		check("Tasks", []store.Run{*sums[0].Latest})

		// The outcome keeps them.
		finish(t, s, id, store.StatusFailed, t0.Add(time.Hour))
		if r := getRun(t, s, id); progressOf(r) != 100 || r.Checkpoint != "copied /srv — ☃" {
			t.Errorf("after Finish: Progress %v, Checkpoint %q", progressOf(r), r.Checkpoint)
		}
	})
}

func TestSetProgressRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		running := mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
		done := mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
		finish(t, s, done, store.StatusSucceeded, t0.Add(time.Minute))
		interrupted := mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
		if _, err := s.Interrupt(ctx, interrupted, t0.Add(time.Minute), "gone"); err != nil {
			t.Fatal(err)
		}
		for name, id := range map[string]int64{"finished": done, "interrupted": interrupted, "unknown": 1 << 40} {
			if err := s.SetProgress(ctx, id, 50, "note"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("SetProgress on a %s run: error %v, want ErrNotFound", name, err)
			}
		}
		if r := getRun(t, s, done); r.Progress != nil || r.Checkpoint != "" {
			t.Errorf("refused SetProgress changed run %d: %v %q", done, progressOf(r), r.Checkpoint)
		}
		for _, bad := range []int{-1, 101} {
			if err := s.SetProgress(ctx, running, bad, ""); err == nil || errors.Is(err, store.ErrNotFound) {
				t.Errorf("SetProgress(%d%%) error %v, want a range error", bad, err)
			}
		}
		if r := getRun(t, s, running); r.Progress != nil {
			t.Errorf("out-of-range progress recorded: %v", progressOf(r))
		}
	})
}

func TestLastCheckpoint(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		slot := t0
		// run starts a run of task's slot, reports note and ends with status.
		run := func(task string, slot time.Time, note, status string) {
			t.Helper()
			id := claim(t, s, store.ClaimRequest{Run: store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule,
				StartedAt: t0}, Force: true}).Run.ID
			if note != "" {
				if err := s.SetProgress(ctx, id, 50, note); err != nil {
					t.Fatal(err)
				}
			}
			switch status {
			case store.StatusInterrupted:
				if _, err := s.Interrupt(ctx, id, t0.Add(time.Minute), "gone"); err != nil {
					t.Fatal(err)
				}
			case store.StatusRunning:
			default:
				finish(t, s, id, status, t0.Add(time.Minute))
			}
		}
		lookup := func(task string, slot time.Time) (string, bool) {
			t.Helper()
			note, ok, err := s.LastCheckpoint(ctx, task, slot)
			if err != nil {
				t.Fatalf("LastCheckpoint: %v", err)
			}
			return note, ok
		}
		if note, ok := lookup("backup", slot); ok {
			t.Errorf("LastCheckpoint on no runs = %q, true", note)
		}
		run("backup", slot, "step 1", store.StatusInterrupted)
		run("backup", slot, "step 2", store.StatusInterrupted)
		run("backup", slot, "", store.StatusInterrupted)         // no checkpoint: not it
		run("backup", slot, "failed at 3", store.StatusFailed)   // not interrupted
		run("backup", slot, "running at 4", store.StatusRunning) // not interrupted
		run("backup", slot.Add(time.Hour), "next slot", store.StatusInterrupted)
		run("other", slot, "other task", store.StatusInterrupted)
		run("backup", time.Time{}, "slotless", store.StatusInterrupted)
		for _, tc := range []struct {
			task   string
			slot   time.Time
			want   string
			wantOK bool
		}{
			{"backup", slot, "step 2", true},
			{"backup", slot.Add(time.Hour), "next slot", true},
			{"other", slot, "other task", true},
			{"backup", slot.Add(time.Second), "", false},
			{"backup", time.Time{}, "", false},
			{"nope", slot, "", false},
		} {
			if note, ok := lookup(tc.task, tc.slot); note != tc.want || ok != tc.wantOK {
				t.Errorf("LastCheckpoint(%s, %v) = %q, %v; want %q, %v", tc.task, tc.slot, note, ok, tc.want, tc.wantOK)
			}
		}
	})
}

// TestClaimReadsCheckpoint: a granted claim that asks for it gives what
// LastCheckpoint gives for its slot, read in the claim's transaction (a
// replay resumes from it); without the ask, or for a slot with none, "".
func TestClaimReadsCheckpoint(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		for _, note := range []string{"step 1", "step 2", ""} {
			id := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule,
				StartedAt: t0}}).Run.ID
			if note != "" {
				if err := s.SetProgress(ctx, id, 50, note); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Interrupt(ctx, id, t0.Add(time.Minute), "gone"); err != nil {
				t.Fatal(err)
			}
		}
		tests := map[string]struct {
			slot time.Time
			ask  bool
			want string
		}{
			"replay of the interrupted slot": {slot: t0, ask: true, want: "step 2"},
			"a slot without checkpoints":     {slot: t0.Add(time.Hour), ask: true, want: ""},
			"not asked":                      {slot: t0, ask: false, want: ""},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: tc.slot, Trigger: store.TriggerReplay,
					StartedAt: t0.Add(2 * time.Minute)}, Checkpoint: tc.ask})
				if !res.Claimed || res.Checkpoint != tc.want {
					t.Errorf("claim: claimed %v, checkpoint %q; want claimed, %q", res.Claimed, res.Checkpoint, tc.want)
				}
				if _, err := s.Interrupt(ctx, res.Run.ID, t0.Add(3*time.Minute), "gone"); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

func TestStatusCounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		got, err := s.StatusCounts(ctx)
		if err != nil || len(got) != 0 {
			t.Fatalf("StatusCounts on a new ledger = %v, %v", got, err)
		}
		want := map[string]map[string]int64{}
		add := func(task, status string, n int) {
			for range n {
				id := mustClaim(t, s, store.Run{Task: task, Trigger: store.TriggerManual, StartedAt: t0})
				switch status {
				case store.StatusRunning:
				case store.StatusInterrupted:
					if _, err := s.Interrupt(ctx, id, t0, "gone"); err != nil {
						t.Fatal(err)
					}
				default:
					finish(t, s, id, status, t0)
				}
			}
			if want[task] == nil {
				want[task] = map[string]int64{}
			}
			want[task][status] += int64(n)
		}
		add("backup", store.StatusSucceeded, 5)
		add("backup", store.StatusFailed, 2)
		add("backup", store.StatusRunning, 1)
		add("rotate", store.StatusInterrupted, 3)
		add("rotate", store.StatusTimeout, 1)
		if _, err := s.AddRun(ctx, store.Run{Task: "skips", Trigger: store.TriggerSchedule, Status: store.StatusSkipped, StartedAt: t0}); err != nil {
			t.Fatal(err)
		}
		want["skips"] = map[string]int64{store.StatusSkipped: 1}
		if err := s.UpsertTask(ctx, store.Task{Name: "never", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		got, err = s.StatusCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("StatusCounts =\n %v\nwant\n %v", got, want)
		}
	})
}
