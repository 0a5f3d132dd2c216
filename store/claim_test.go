package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestClaim(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		slot := t0
		sched := func(task string, slot time.Time) store.Run {
			return store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot.Add(time.Second),
				Host: "host1", PID: 4242, BootID: "boot-1"}
		}
		type prior struct {
			run    store.Run
			status string // outcome to Finish with; "" leaves it running
			force  bool
		}
		tests := map[string]struct {
			prior   []prior
			req     store.ClaimRequest
			claimed bool
			holder  int // index in prior of the run that holds the slot
		}{
			"slotless on an empty ledger": {
				req:     store.ClaimRequest{Run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}},
				claimed: true,
			},
			"slotless while another slotless runs": {
				prior:   []prior{{run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}}},
				req:     store.ClaimRequest{Run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}},
				claimed: true,
			},
			"slotless after a succeeded slotless": {
				prior:   []prior{{run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}, status: store.StatusSucceeded}},
				req:     store.ClaimRequest{Run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}},
				claimed: true,
			},
			"first claim of a slot": {
				req:     store.ClaimRequest{Run: sched("backup", slot)},
				claimed: true,
			},
			"slot running": {
				prior:  []prior{{run: sched("backup", slot)}},
				req:    store.ClaimRequest{Run: sched("backup", slot)},
				holder: 0,
			},
			"slot running, forced": {
				prior:  []prior{{run: sched("backup", slot)}},
				req:    store.ClaimRequest{Run: sched("backup", slot), Force: true},
				holder: 0,
			},
			"slot succeeded": {
				prior:  []prior{{run: sched("backup", slot), status: store.StatusSucceeded}},
				req:    store.ClaimRequest{Run: sched("backup", slot)},
				holder: 0,
			},
			"slot succeeded, forced": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusSucceeded}},
				req:     store.ClaimRequest{Run: sched("backup", slot), Force: true},
				claimed: true,
			},
			"slot failed": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusFailed}},
				req:     store.ClaimRequest{Run: sched("backup", slot)},
				claimed: true,
			},
			"slot timed out": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusTimeout}},
				req:     store.ClaimRequest{Run: sched("backup", slot)},
				claimed: true,
			},
			"slot interrupted": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusInterrupted}},
				req:     store.ClaimRequest{Run: sched("backup", slot)},
				claimed: true,
			},
			"slot failed then retry running": {
				prior: []prior{
					{run: sched("backup", slot), status: store.StatusFailed},
					{run: sched("backup", slot)},
				},
				req:    store.ClaimRequest{Run: sched("backup", slot)},
				holder: 1,
			},
			"slot failed then retry succeeded": {
				prior: []prior{
					{run: sched("backup", slot), status: store.StatusFailed},
					{run: sched("backup", slot), status: store.StatusSucceeded},
					{run: sched("backup", slot.Add(time.Hour))},
				},
				req:    store.ClaimRequest{Run: sched("backup", slot)},
				holder: 1,
			},
			"slot succeeded and a forced rerun running": {
				prior: []prior{
					{run: sched("backup", slot), status: store.StatusSucceeded},
					{run: sched("backup", slot), force: true},
				},
				req:    store.ClaimRequest{Run: sched("backup", slot), Force: true},
				holder: 1,
			},
			"another slot of the task running": {
				prior:   []prior{{run: sched("backup", slot)}},
				req:     store.ClaimRequest{Run: sched("backup", slot.Add(time.Minute))},
				claimed: true,
			},
			"one second later is another slot": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusSucceeded}},
				req:     store.ClaimRequest{Run: sched("backup", slot.Add(time.Second))},
				claimed: true,
			},
			"same slot of another task": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusSucceeded}},
				req:     store.ClaimRequest{Run: sched("rotate", slot)},
				claimed: true,
			},
			"slotless run does not hold a slot": {
				prior:   []prior{{run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: slot}}},
				req:     store.ClaimRequest{Run: sched("backup", slot)},
				claimed: true,
			},
			"skipped run does not hold a slot": {
				prior:   []prior{{run: sched("backup", slot), status: store.StatusSkipped}},
				req:     store.ClaimRequest{Run: sched("backup", slot)},
				claimed: true,
			},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				var priorIDs []int64
				for _, p := range tc.prior {
					res := claim(t, s, store.ClaimRequest{Run: p.run, Force: p.force})
					if !res.Claimed {
						t.Fatalf("prior claim not granted; holder %+v", res.Run)
					}
					id := res.Run.ID
					if p.status != "" {
						finish(t, s, id, p.status, p.run.StartedAt.Add(time.Minute))
					}
					priorIDs = append(priorIDs, id)
				}
				res := claim(t, s, tc.req)
				if res.Claimed != tc.claimed {
					t.Fatalf("Claimed = %v, want %v (run %+v)", res.Claimed, tc.claimed, res.Run)
				}
				if tc.claimed {
					want := tc.req.Run
					want.ID = res.Run.ID
					want.Status = store.StatusRunning
					want.Attempt = 1
					want.Heartbeat = claimedHeartbeat(s, want)
					if !sameRun(res.Run, want) {
						t.Errorf("claimed run\n got %+v\nwant %+v", res.Run, want)
					}
					for _, id := range priorIDs {
						if res.Run.ID == id {
							t.Errorf("claimed run reuses id %d", id)
						}
					}
					if got := getRun(t, s, res.Run.ID); !sameRun(got, want) {
						t.Errorf("Run(%d)\n got %+v\nwant %+v", res.Run.ID, got, want)
					}
					return
				}
				holder := getRun(t, s, priorIDs[tc.holder])
				holder.StdoutTail, holder.StderrTail = nil, nil // not asked for
				if !sameRun(res.Run, holder) {
					t.Errorf("holder\n got %+v\nwant %+v", res.Run, holder)
				}
				// A refused claim inserts nothing.
				hist, err := s.History(ctx, store.HistoryFilter{})
				if err != nil {
					t.Fatal(err)
				}
				if len(hist) != len(tc.prior) {
					t.Errorf("History holds %d runs after a refused claim, want %d", len(hist), len(tc.prior))
				}
			})
		}
	})
}

// The life of one slot, step by step, on one ledger.
func TestClaimSlotLifecycle(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		run := store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0}
		step := func(name string, force, wantClaimed bool, wantHolder int64) int64 {
			t.Helper()
			res := claim(t, s, store.ClaimRequest{Run: run, Force: force})
			if res.Claimed != wantClaimed {
				t.Fatalf("%s: Claimed = %v, want %v", name, res.Claimed, wantClaimed)
			}
			if !wantClaimed && res.Run.ID != wantHolder {
				t.Fatalf("%s: holder %d, want %d", name, res.Run.ID, wantHolder)
			}
			return res.Run.ID
		}
		first := step("first claim", false, true, 0)
		step("claim while running", false, false, first)
		step("forced claim while running", true, false, first)
		finish(t, s, first, store.StatusFailed, t0.Add(time.Minute))
		retry := step("claim after failure", false, true, 0)
		step("claim while retry runs", false, false, retry)
		finish(t, s, retry, store.StatusSucceeded, t0.Add(2*time.Minute))
		step("claim after success", false, false, retry)
		forced := step("forced claim after success", true, true, 0)
		step("claim while forced run runs", false, false, forced)
		if ok, err := s.Interrupt(t.Context(), forced, t0.Add(3*time.Minute), "host rebooted"); err != nil || !ok {
			t.Fatalf("Interrupt = %v, %v", ok, err)
		}
		// The earlier success still holds the slot.
		step("claim after interrupted rerun", false, false, retry)
	})
}

func TestClaimRegister(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		task := store.Task{Name: "backup", Schedule: "0 3 * * *", Argv: []string{"/bin/backup", "--all"},
			Source: "run", Retries: 2, RetryDelay: time.Minute, RegisteredAt: t0, UpdatedAt: t0, Replay: "all"}
		res := claim(t, s, store.ClaimRequest{
			Run:      store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0},
			Register: &task,
		})
		if !res.Claimed {
			t.Fatal("not claimed")
		}
		got, err := s.Task(ctx, "backup")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, task) {
			t.Errorf("registered task\n got %#v\nwant %#v", got, task)
		}

		// A refused claim still registers the new definition; the
		// registration time only moves back.
		task2 := task
		task2.Argv = []string{"/bin/backup", "--quick"}
		task2.RegisteredAt, task2.UpdatedAt = t0.Add(time.Hour), t0.Add(time.Hour)
		res = claim(t, s, store.ClaimRequest{
			Run:      store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0.Add(time.Hour)},
			Register: &task2,
		})
		if res.Claimed {
			t.Fatal("second claim of a running slot granted")
		}
		got, err = s.Task(ctx, "backup")
		if err != nil {
			t.Fatal(err)
		}
		want := task2
		want.RegisteredAt = t0
		if !reflect.DeepEqual(got, want) {
			t.Errorf("re-registered task\n got %#v\nwant %#v", got, want)
		}
	})
}

func TestClaimCreatesMinimalTask(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "ad hoc", Trigger: store.TriggerManual, StartedAt: t0}})
		if !res.Claimed {
			t.Fatal("not claimed")
		}
		task, err := s.Task(ctx, "ad hoc")
		if err != nil {
			t.Fatalf("Task after a claim without Register: %v", err)
		}
		if task.Name != "ad hoc" || !task.RegisteredAt.Equal(t0) || task.Replay != "all" || len(task.Argv) != 0 {
			t.Errorf("minimal task = %#v", task)
		}
		sums, err := s.Tasks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 1 || sums[0].Task.Name != "ad hoc" || sums[0].Latest == nil || sums[0].Latest.ID != res.Run.ID {
			t.Errorf("Tasks = %+v, want ad hoc with run %d", sums, res.Run.ID)
		}

		// A later claim without Register leaves an existing task alone.
		full := store.Task{Name: "backup", Argv: []string{"/bin/backup"}, Schedule: "@daily", RegisteredAt: t0, UpdatedAt: t0, Replay: "latest"}
		if err := s.UpsertTask(ctx, full); err != nil {
			t.Fatal(err)
		}
		claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0.Add(-time.Hour)}})
		got, err := s.Task(ctx, "backup")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, full) {
			t.Errorf("claim without Register changed the task\n got %#v\nwant %#v", got, full)
		}
	})
}

func TestClaimKeepsAttempt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerRetry, Attempt: 3, StartedAt: t0}})
		if !res.Claimed || res.Run.Attempt != 3 {
			t.Fatalf("claim = %+v", res)
		}
		if got := getRun(t, s, res.Run.ID); got.Attempt != 3 || got.Trigger != store.TriggerRetry {
			t.Errorf("Run = %+v, want attempt 3, trigger retry", got)
		}
	})
}
