package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

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
