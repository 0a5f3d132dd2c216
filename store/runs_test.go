package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
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

// Every process opens its own ledger; exactly one of them gets each slot.
func TestClaimConcurrentProcesses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		const procs, slots = 8, 20
		location := be.ledger(t)
		be.open(t, location) // the ledger exists before the processes start
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			mu      sync.Mutex
			winners = map[int64][]int{} // slot -> process indexes that claimed it
			holders = map[int64]map[int64]bool{}
			errs    []error
		)
		for p := range procs {
			wg.Go(func() {
				ctx := context.Background()
				s, err := openAt(ctx, location)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("process %d: open: %w", p, err))
					mu.Unlock()
					return
				}
				defer s.Close()
				<-start
				for i := range slots {
					slot := t0.Add(time.Duration(i) * time.Minute)
					res, err := s.Claim(ctx, store.ClaimRequest{
						Run:      store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot, PID: p},
						Register: &store.Task{Name: "backup", Argv: []string{"/bin/backup"}, RegisteredAt: slot, UpdatedAt: slot},
					})
					mu.Lock()
					switch {
					case err != nil:
						errs = append(errs, fmt.Errorf("process %d, slot %d: %w", p, i, err))
					case res.Claimed:
						winners[slot.Unix()] = append(winners[slot.Unix()], p)
					default:
						if holders[slot.Unix()] == nil {
							holders[slot.Unix()] = map[int64]bool{}
						}
						holders[slot.Unix()][res.Run.ID] = true
					}
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			t.Error(err)
		}
		for i := range slots {
			slot := t0.Add(time.Duration(i) * time.Minute).Unix()
			if len(winners[slot]) != 1 {
				t.Errorf("slot %d claimed by processes %v, want exactly one", i, winners[slot])
			}
			if len(holders[slot]) > 1 {
				t.Errorf("slot %d: losers saw holders %v, want one", i, holders[slot])
			}
		}
		s := be.open(t, location)
		runs, err := s.Running(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != slots {
			t.Errorf("ledger holds %d running runs, want %d", len(runs), slots)
		}
	})
}

func TestInterrupt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			status  string // "" leaves the run running
			changed bool
		}{
			"running":     {changed: true},
			"succeeded":   {status: store.StatusSucceeded},
			"failed":      {status: store.StatusFailed},
			"timeout":     {status: store.StatusTimeout},
			"interrupted": {status: store.StatusInterrupted},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
				end := t0.Add(time.Minute)
				if tc.status != "" {
					if err := s.Finish(ctx, id, store.Outcome{Status: tc.status, ExitCode: intp(0), EndedAt: end, Error: "kept"}); err != nil {
						t.Fatal(err)
					}
				}
				before := getRun(t, s, id)
				at := t0.Add(time.Hour)
				changed, err := s.Interrupt(ctx, id, at, "boot id changed")
				if err != nil {
					t.Fatalf("Interrupt: %v", err)
				}
				if changed != tc.changed {
					t.Errorf("Interrupt = %v, want %v", changed, tc.changed)
				}
				got := getRun(t, s, id)
				want := before
				if tc.changed {
					want.Status, want.EndedAt, want.Error = store.StatusInterrupted, at, "boot id changed"
				}
				if !sameRun(got, want) {
					t.Errorf("after Interrupt\n got %+v\nwant %+v", got, want)
				}
				// Interrupting twice changes nothing more.
				again, err := s.Interrupt(ctx, id, at.Add(time.Hour), "again")
				if err != nil || again {
					t.Errorf("second Interrupt = %v, %v; want false, nil", again, err)
				}
			})
		}
		t.Run("unknown id", func(t *testing.T) {
			s := be.fresh(t)
			changed, err := s.Interrupt(t.Context(), 12345, t0, "x")
			if err != nil || changed {
				t.Errorf("Interrupt(unknown) = %v, %v; want false, nil", changed, err)
			}
		})
	})
}

func TestFinishRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		binary := []byte{0x00, 'o', 'k', 0xff, 0xfe, '\n', 0xc3, 0x28, 0x00, 0x80, '\r', 0x1b, '[', 'm', 0x00}
		tests := map[string]store.Outcome{
			"success exit 0": {Status: store.StatusSucceeded, ExitCode: intp(0), StdoutTail: []byte("done\n")},
			"failure exit 3": {Status: store.StatusFailed, ExitCode: intp(3), StderrTail: []byte("disk full\n")},
			"exit 255":       {Status: store.StatusFailed, ExitCode: intp(255)},
			"killed by signal, no exit code": {Status: store.StatusTimeout, Signal: 9,
				Error: "timed out after 1h0m0s; killed"},
			"could not start": {Status: store.StatusFailed, Error: `exec: "/nope": no such file or directory`},
			"binary tails": {Status: store.StatusFailed, ExitCode: intp(1), StdoutTail: binary,
				StderrTail: append([]byte("\x00\x00"), binary...)},
			"only nul bytes": {Status: store.StatusSucceeded, ExitCode: intp(0), StdoutTail: []byte{0, 0, 0}},
			"large tail":     {Status: store.StatusSucceeded, ExitCode: intp(0), StdoutTail: makeBytes(64 << 10)},
			"unicode error":  {Status: store.StatusInterrupted, Error: "machine went down — ☃"},
		}
		s := be.fresh(t)
		for name, o := range tests {
			t.Run(name, func(t *testing.T) {
				ctx := t.Context()
				claimed := store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0.Add(123 * time.Millisecond),
					Host: "h", PID: 99, BootID: "b"}
				id := mustClaim(t, s, claimed)
				o.EndedAt = t0.Add(time.Hour + 456*time.Millisecond)
				if err := s.Finish(ctx, id, o); err != nil {
					t.Fatalf("Finish: %v", err)
				}
				got := getRun(t, s, id)
				want := claimed
				want.ID, want.Attempt = id, 1
				want.Heartbeat = claimedHeartbeat(s, claimed)
				want.Status, want.ExitCode, want.Signal, want.EndedAt = o.Status, o.ExitCode, o.Signal, o.EndedAt
				want.StdoutTail, want.StderrTail, want.Error = o.StdoutTail, o.StderrTail, o.Error
				if !sameRun(got, want) {
					t.Errorf("Run(%d)\n got %+v\nwant %+v", id, got, want)
				}
				if (got.ExitCode == nil) != (o.ExitCode == nil) {
					t.Errorf("ExitCode = %v, want %v (nil and 0 differ)", got.ExitCode, o.ExitCode)
				}
				// History and Running do not load tails.
				hist, err := s.History(ctx, store.HistoryFilter{Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(hist) != 1 || hist[0].ID != id {
					t.Fatalf("History = %v, want run %d", ids(hist), id)
				}
				if hist[0].StdoutTail != nil || hist[0].StderrTail != nil {
					t.Errorf("History loaded tails")
				}
				if !reflect.DeepEqual(hist[0].ExitCode, o.ExitCode) {
					t.Errorf("History ExitCode = %v, want %v", hist[0].ExitCode, o.ExitCode)
				}
			})
		}
	})
}

func makeBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func TestRunNotFound(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		id := mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
		for _, bad := range []int64{0, -1, id + 1, 1 << 40} {
			if _, err := s.Run(t.Context(), bad); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("Run(%d) error %v, want ErrNotFound", bad, err)
			}
		}
	})
}

func TestAddRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		skip := store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, Status: store.StatusSkipped,
			Attempt: 1, StartedAt: t0.Add(time.Second), EndedAt: t0.Add(time.Second), Host: "h",
			Error: "previous run still running"}
		id, err := s.AddRun(ctx, skip)
		if err != nil {
			t.Fatalf("AddRun: %v", err)
		}
		skip.ID = id
		if got := getRun(t, s, id); !sameRun(got, skip) {
			t.Errorf("Run(%d)\n got %+v\nwant %+v", id, got, skip)
		}
		// A skip records a slot, but does not hold it.
		running, err := s.Running(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(running) != 0 {
			t.Errorf("Running = %v after a skip", ids(running))
		}
		// Attempt defaults to 1.
		id2, err := s.AddRun(ctx, store.Run{Task: "backup", Trigger: store.TriggerManual, Status: store.StatusSkipped, StartedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		if got := getRun(t, s, id2); got.Attempt != 1 || !got.Slot.IsZero() || !got.EndedAt.IsZero() {
			t.Errorf("AddRun defaults: %+v", got)
		}
	})
}

func TestRunning(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		a := mustClaim(t, s, store.Run{Task: "a", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		b := mustClaim(t, s, store.Run{Task: "b", Trigger: store.TriggerManual, StartedAt: t0})
		c := mustClaim(t, s, store.Run{Task: "c", Trigger: store.TriggerManual, StartedAt: t0})
		finish(t, s, b, store.StatusSucceeded, t0.Add(time.Second))
		running, err := s.Running(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(running), []int64{a, c}; !reflect.DeepEqual(got, want) {
			t.Errorf("Running = %v, want %v", got, want)
		}
	})
}

func TestHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		// 30 runs of "a" alternating succeeded/failed, 5 of "b" still running.
		var aAll, aFailed, bAll []int64
		for i := range 30 {
			at := t0.Add(time.Duration(i) * time.Minute)
			id := mustClaim(t, s, store.Run{Task: "a", Slot: at, Trigger: store.TriggerSchedule, StartedAt: at})
			status := store.StatusSucceeded
			if i%2 == 1 {
				status = store.StatusFailed
				aFailed = append(aFailed, id)
			}
			finish(t, s, id, status, at.Add(time.Second))
			aAll = append(aAll, id)
			if i%6 == 0 {
				bAll = append(bAll, mustClaim(t, s, store.Run{Task: "b", Trigger: store.TriggerManual, StartedAt: at}))
			}
		}
		all := append(append([]int64{}, aAll...), bAll...)
		newest := func(v []int64, n int) []int64 {
			out := slices.Clone(v)
			slices.Sort(out)
			slices.Reverse(out) // newest first
			if n < len(out) {
				out = out[:n]
			}
			return out
		}
		tests := map[string]struct {
			filter store.HistoryFilter
			want   []int64
		}{
			"default limit is 20":     {filter: store.HistoryFilter{}, want: newest(all, 20)},
			"negative limit":          {filter: store.HistoryFilter{Limit: -5}, want: newest(all, 20)},
			"limit 3":                 {filter: store.HistoryFilter{Limit: 3}, want: newest(all, 3)},
			"limit above count":       {filter: store.HistoryFilter{Limit: 1000}, want: newest(all, 1000)},
			"by task":                 {filter: store.HistoryFilter{Task: "a", Limit: 100}, want: newest(aAll, 100)},
			"by task, default limit":  {filter: store.HistoryFilter{Task: "a"}, want: newest(aAll, 20)},
			"by status":               {filter: store.HistoryFilter{Status: store.StatusRunning}, want: newest(bAll, 20)},
			"by task and status":      {filter: store.HistoryFilter{Task: "a", Status: store.StatusFailed, Limit: 4}, want: newest(aFailed, 4)},
			"task with other status":  {filter: store.HistoryFilter{Task: "b", Status: store.StatusFailed}, want: nil},
			"unknown task":            {filter: store.HistoryFilter{Task: "zzz"}, want: nil},
			"unknown status":          {filter: store.HistoryFilter{Status: "exploded"}, want: nil},
			"task name is exact":      {filter: store.HistoryFilter{Task: "A"}, want: nil},
			"by status, small limit":  {filter: store.HistoryFilter{Status: store.StatusSucceeded, Limit: 2}, want: newest(difference(aAll, aFailed), 2)},
			"by task b, all statuses": {filter: store.HistoryFilter{Task: "b"}, want: newest(bAll, 20)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				got, err := s.History(t.Context(), tc.filter)
				if err != nil {
					t.Fatal(err)
				}
				if g := ids(got); !slices.Equal(g, tc.want) {
					t.Errorf("History(%+v) = %v, want %v", tc.filter, g, tc.want)
				}
				for _, r := range got {
					if tc.filter.Task != "" && r.Task != tc.filter.Task || tc.filter.Status != "" && r.Status != tc.filter.Status {
						t.Errorf("History(%+v) returned %+v", tc.filter, r)
					}
				}
			})
		}
	})
}

func difference(a, b []int64) []int64 {
	drop := map[int64]bool{}
	for _, x := range b {
		drop[x] = true
	}
	var out []int64
	for _, x := range a {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

func TestSlotRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		from, to := t0, t0.Add(time.Hour)
		const grace = 10 * time.Minute
		type rec struct {
			slot    time.Time // zero: slotless
			started time.Time
			task    string
			in      bool
		}
		recs := map[string]rec{
			"slot at from":                    {slot: from, started: from.Add(time.Second), in: true},
			"slot at to":                      {slot: to, started: to.Add(time.Second), in: true},
			"slot inside":                     {slot: from.Add(30 * time.Minute), started: from.Add(30 * time.Minute), in: true},
			"slot inside, started long after": {slot: from.Add(5 * time.Minute), started: to.Add(24 * time.Hour), in: true},
			"slot a second before from":       {slot: from.Add(-time.Second), started: from},
			"slot a second after to":          {slot: to.Add(time.Second), started: to.Add(time.Second)},
			"slot inside, other task":         {slot: from.Add(time.Minute), started: from.Add(time.Minute), task: "other"},
			"slotless at from":                {started: from, in: true},
			"slotless inside":                 {started: from.Add(20 * time.Minute), in: true},
			"slotless within grace":           {started: to.Add(grace - time.Millisecond), in: true},
			"slotless at to+grace":            {started: to.Add(grace), in: true},
			"slotless just after grace":       {started: to.Add(grace + time.Millisecond)},
			"slotless just before from":       {started: from.Add(-time.Millisecond)},
			"slotless inside, other task":     {started: from.Add(time.Minute), task: "other"},
		}
		wantIn := map[int64]string{}
		var wantSlotted, wantSlotless []int64
		// Insert in an order unrelated to slots and starts, to check ordering.
		for _, name := range []string{
			"slotless within grace", "slot at to", "slotless inside, other task", "slot inside, started long after",
			"slotless at from", "slot a second before from", "slot inside", "slotless just after grace",
			"slot at from", "slotless at to+grace", "slot a second after to", "slotless inside",
			"slot inside, other task", "slotless just before from",
		} {
			r := recs[name]
			task := "backup"
			if r.task != "" {
				task = r.task
			}
			id, err := s.AddRun(ctx, store.Run{Task: task, Slot: r.slot, Trigger: store.TriggerManual,
				Status: store.StatusSucceeded, StartedAt: r.started, EndedAt: r.started.Add(time.Second),
				StdoutTail: []byte("tail")})
			if err != nil {
				t.Fatal(err)
			}
			if r.in {
				wantIn[id] = name
			}
		}
		if len(wantIn) != 8 {
			t.Fatalf("test table: %d runs in, want 8", len(wantIn))
		}
		got, err := s.SlotRuns(ctx, "backup", from, to, grace)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, r := range got {
			if _, ok := wantIn[r.ID]; !ok {
				t.Errorf("SlotRuns returned run %d (%+v), not in range", r.ID, r)
			}
			seen[r.ID] = true
			if r.StdoutTail != nil {
				t.Errorf("SlotRuns loaded the tail of run %d", r.ID)
			}
			if r.Slot.IsZero() {
				wantSlotless = append(wantSlotless, r.ID)
			} else {
				wantSlotted = append(wantSlotted, r.ID)
			}
		}
		for id, name := range wantIn {
			if !seen[id] {
				t.Errorf("SlotRuns missed %q (run %d)", name, id)
			}
		}
		// Oldest first: slotted runs by slot, then slotless runs by start.
		var prev time.Time
		for i, r := range got {
			key := r.Slot
			if r.Slot.IsZero() {
				key = r.StartedAt
				if i > 0 && !got[i-1].Slot.IsZero() {
					prev = time.Time{}
				}
			}
			if key.Before(prev) {
				t.Errorf("SlotRuns not oldest first at run %d: %v after %v", r.ID, key, prev)
			}
			prev = key
		}

		t.Run("empty range", func(t *testing.T) {
			got, err := s.SlotRuns(ctx, "backup", t0.Add(-48*time.Hour), t0.Add(-47*time.Hour), 0)
			if err != nil || len(got) != 0 {
				t.Errorf("SlotRuns = %v, %v; want none", ids(got), err)
			}
		})
		t.Run("unknown task", func(t *testing.T) {
			got, err := s.SlotRuns(ctx, "nope", from, to, grace)
			if err != nil || len(got) != 0 {
				t.Errorf("SlotRuns = %v, %v; want none", ids(got), err)
			}
		})
	})
}

func TestLatestSlotAndEarliestRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "never", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		// "busy": slots out of order, and a slotless run first.
		first := t0.Add(-time.Hour + 250*time.Millisecond)
		mustClaim(t, s, store.Run{Task: "busy", Trigger: store.TriggerManual, StartedAt: first})
		for _, h := range []int{3, 7, 5} {
			at := t0.Add(time.Duration(h) * time.Hour)
			mustClaim(t, s, store.Run{Task: "busy", Slot: at, Trigger: store.TriggerSchedule, StartedAt: at})
		}
		mustClaim(t, s, store.Run{Task: "busy", Trigger: store.TriggerManual, StartedAt: t0.Add(48 * time.Hour)})
		// "slotless": runs, but never for a slot.
		mustClaim(t, s, store.Run{Task: "slotless", Trigger: store.TriggerManual, StartedAt: t0})
		// "skipped": only a skip record.
		if _, err := s.AddRun(ctx, store.Run{Task: "skipped", Slot: t0.Add(time.Hour), Trigger: store.TriggerSchedule,
			Status: store.StatusSkipped, StartedAt: t0.Add(2 * time.Hour), EndedAt: t0.Add(2 * time.Hour)}); err != nil {
			t.Fatal(err)
		}

		tests := map[string]struct {
			latestSlot, earliest time.Time
		}{
			"never":    {},
			"unknown":  {},
			"busy":     {latestSlot: t0.Add(7 * time.Hour), earliest: first},
			"slotless": {earliest: t0},
			"skipped":  {latestSlot: t0.Add(time.Hour), earliest: t0.Add(2 * time.Hour)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				ls, err := s.LatestSlot(ctx, name)
				if err != nil {
					t.Fatalf("LatestSlot: %v", err)
				}
				if !ls.Equal(tc.latestSlot) || ls.IsZero() != tc.latestSlot.IsZero() {
					t.Errorf("LatestSlot = %v, want %v", ls, tc.latestSlot)
				}
				if !ls.IsZero() && ls.Location() != time.UTC {
					t.Errorf("LatestSlot location %v, want UTC", ls.Location())
				}
				er, err := s.EarliestRun(ctx, name)
				if err != nil {
					t.Fatalf("EarliestRun: %v", err)
				}
				if !er.Equal(tc.earliest) || er.IsZero() != tc.earliest.IsZero() {
					t.Errorf("EarliestRun = %v, want %v", er, tc.earliest)
				}
			})
		}
	})
}

// Times come back in UTC whatever zone they went in with.
func TestTimesComeBackUTC(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		zone := time.FixedZone("UTC+5:30", 5*3600+1800)
		slot := t0.In(zone)
		id := mustClaim(t, s, store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot.Add(time.Second)})
		if err := s.Finish(t.Context(), id, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		r := getRun(t, s, id)
		for name, v := range map[string]time.Time{"Slot": r.Slot, "StartedAt": r.StartedAt, "EndedAt": r.EndedAt} {
			if v.Location() != time.UTC {
				t.Errorf("%s in %v, want UTC", name, v.Location())
			}
		}
		if !r.Slot.Equal(t0) || !r.StartedAt.Equal(t0.Add(time.Second)) || !r.EndedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("times = %v %v %v", r.Slot, r.StartedAt, r.EndedAt)
		}
	})
}

// TestSlotRunsSubSecondFrom: slots are whole seconds; a lower bound with a
// fraction (a watermark set from now - tolerance) excludes the slot at the
// whole second below it.
func TestSlotRunsSubSecondFrom(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		mustClaim(t, s, store.Run{Task: "x", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		next := mustClaim(t, s, store.Run{Task: "x", Slot: t0.Add(time.Second), Trigger: store.TriggerSchedule, StartedAt: t0})
		got, err := s.SlotRuns(t.Context(), "x", t0.Add(250*time.Millisecond), t0.Add(time.Hour), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != next {
			t.Errorf("SlotRuns from %v returned %v, want only the run of the slot a second later", t0.Add(250*time.Millisecond), ids(got))
		}
	})
}
