package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/postgres"
)

// Five hosts, each its own Open, fire the same 20 slots at the same
// instant, every slot in a goroutine of its own: each slot is claimed once,
// and every loser is told which host holds it.
func TestPostgresConcurrentHosts(t *testing.T) {
	const hosts, slots, rounds = 5, 20, 3
	dsn := pgLedger(t)
	ledgers := make([]*postgres.Ledger, hosts)
	for h := range hosts {
		ledgers[h] = openPG(t, dsn)
	}
	for round := range rounds {
		task := fmt.Sprintf("backup-%d", round)
		type result struct {
			host int
			res  store.ClaimResult
			err  error
		}
		results := make(chan result, hosts*slots)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for h, l := range ledgers {
			for i := range slots {
				wg.Go(func() {
					slot := t0.Add(time.Duration(i) * time.Minute)
					<-start
					res, err := l.Claim(context.Background(), store.ClaimRequest{
						Run: store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot,
							Host: fmt.Sprintf("host-%d", h), PID: 1000 + h},
						Register: &store.Task{Name: task, Argv: []string{"/bin/backup"}, RegisteredAt: slot, UpdatedAt: slot},
					})
					results <- result{h, res, err}
				})
			}
		}
		close(start)
		wg.Wait()
		close(results)
		winners := map[int64][]store.Run{} // slot -> claimed runs
		var losers []store.Run             // holders reported to losers
		for r := range results {
			switch {
			case r.err != nil:
				t.Errorf("host %d: %v", r.host, r.err)
			case r.res.Claimed:
				if want := fmt.Sprintf("host-%d", r.host); r.res.Run.Host != want {
					t.Errorf("claimed run host %q, want %q", r.res.Run.Host, want)
				}
				winners[r.res.Run.Slot.Unix()] = append(winners[r.res.Run.Slot.Unix()], r.res.Run)
			default:
				losers = append(losers, r.res.Run)
			}
		}
		for i := range slots {
			slot := t0.Add(time.Duration(i) * time.Minute).Unix()
			if len(winners[slot]) != 1 {
				t.Errorf("round %d, slot %d claimed %d times, want exactly once", round, i, len(winners[slot]))
			}
		}
		if len(losers) != (hosts-1)*slots {
			t.Errorf("round %d: %d refused claims, want %d", round, len(losers), (hosts-1)*slots)
		}
		for _, h := range losers {
			w := winners[h.Slot.Unix()]
			if len(w) == 1 && (h.ID != w[0].ID || h.Host != w[0].Host || h.Status != store.StatusRunning) {
				t.Errorf("loser told holder %d on %q (%s), want %d on %q", h.ID, h.Host, h.Status, w[0].ID, w[0].Host)
			}
		}
		// Every host's view of the ledger shows the one run per slot, and
		// who made it.
		for h, l := range ledgers {
			runs, err := l.History(t.Context(), store.HistoryFilter{Task: task, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != slots {
				t.Errorf("host %d sees %d runs of %s, want %d", h, len(runs), task, slots)
			}
			for _, r := range runs {
				if w := winners[r.Slot.Unix()]; len(w) == 1 && (r.ID != w[0].ID || r.Host != w[0].Host) {
					t.Errorf("host %d sees run %d on %q for slot %v, want %d on %q", h, r.ID, r.Host, r.Slot, w[0].ID, w[0].Host)
				}
			}
		}
	}
}

// While one host records a success, others keep claiming the slot: none may
// get it, before or after. After a failure, exactly one of them gets it.
func TestPostgresClaimFinishRace(t *testing.T) {
	const claimers, tries = 4, 40
	dsn := pgLedger(t)
	owner := openPG(t, dsn)
	others := make([]*postgres.Ledger, claimers)
	for i := range others {
		others[i] = openPG(t, dsn)
	}
	for i, outcome := range []string{store.StatusSucceeded, store.StatusFailed, store.StatusSucceeded, store.StatusFailed} {
		slot := t0.Add(time.Duration(i) * time.Hour)
		run := store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot, Host: "owner"}
		first := mustClaim(t, owner, run)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			granted []store.Run
			start   = make(chan struct{})
		)
		wg.Go(func() {
			<-start
			time.Sleep(2 * time.Millisecond)
			if err := owner.Finish(context.Background(), first, store.Outcome{Status: outcome, ExitCode: intp(0), EndedAt: slot.Add(time.Second)}); err != nil {
				t.Errorf("Finish: %v", err)
			}
		})
		for c, l := range others {
			wg.Go(func() {
				<-start
				for range tries {
					r := run
					r.Host = fmt.Sprintf("claimer-%d", c)
					res, err := l.Claim(context.Background(), store.ClaimRequest{Run: r})
					if err != nil {
						t.Errorf("claimer %d: %v", c, err)
						return
					}
					if res.Claimed {
						mu.Lock()
						granted = append(granted, res.Run)
						mu.Unlock()
						continue
					}
					if res.Run.Host == "owner" && res.Run.ID != first || res.Run.Host == "" {
						t.Errorf("claimer %d told holder %+v", c, res.Run)
					}
				}
			})
		}
		close(start)
		wg.Wait()
		switch {
		case outcome == store.StatusSucceeded && len(granted) != 0:
			t.Errorf("slot claimed %d times around its success: %+v", len(granted), granted)
		case outcome == store.StatusFailed && len(granted) != 1:
			t.Errorf("failed slot claimed %d times by the others, want once: %+v", len(granted), granted)
		}
		runs, err := owner.History(t.Context(), store.HistoryFilter{Task: "backup", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range runs {
			if r.Slot.Equal(slot) {
				n++
			}
		}
		if n != 1+len(granted) {
			t.Errorf("%d runs recorded for the slot, want %d", n, 1+len(granted))
		}
	}
}

// A run interrupted by another host's scan, whose slot was replayed, comes
// back with its outcome: the outcome is recorded on its own run, and the
// replay keeps the slot.
func TestPostgresLateFinish(t *testing.T) {
	for _, late := range []string{store.StatusSucceeded, store.StatusFailed} {
		t.Run(late, func(t *testing.T) {
			dsn := pgLedger(t)
			h1, h2, h3 := openPG(t, dsn), openPG(t, dsn), openPG(t, dsn)
			ctx := t.Context()
			run := store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0, Host: "h1"}
			old := mustClaim(t, h1, run)
			if ok, err := h2.Interrupt(ctx, old, t0.Add(2*time.Minute), "heartbeat older than the lease"); err != nil || !ok {
				t.Fatalf("Interrupt = %v, %v", ok, err)
			}
			replay := run
			replay.Host, replay.Trigger, replay.StartedAt = "h2", store.TriggerReplay, t0.Add(3*time.Minute)
			replayID := mustClaim(t, h2, replay)

			// h1 comes back and records what its command did.
			o := store.Outcome{Status: late, ExitCode: intp(0), EndedAt: t0.Add(4 * time.Minute), StdoutTail: []byte("late\n")}
			if err := h1.Finish(ctx, old, o); err != nil {
				t.Fatalf("late Finish: %v", err)
			}
			got := getRun(t, h3, old)
			if got.Status != late || got.Host != "h1" || !got.EndedAt.Equal(o.EndedAt) || string(got.StdoutTail) != "late\n" {
				t.Errorf("late run = %+v, want its late outcome %s", got, late)
			}
			// The replay still runs, and still holds the slot.
			if r := getRun(t, h3, replayID); r.Status != store.StatusRunning {
				t.Errorf("replay status %s, want running", r.Status)
			}
			running, err := h3.Running(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(running); !slices.Equal(got, []int64{replayID}) {
				t.Errorf("Running = %v, want the replay %d", got, replayID)
			}
			third := run
			third.Host = "h3"
			for _, force := range []bool{false, true} {
				res := claim(t, h3, store.ClaimRequest{Run: third, Force: force})
				if res.Claimed || res.Run.ID != replayID || res.Run.Host != "h2" {
					t.Errorf("claim (force %v) during the replay = %+v, want refused, held by %d on h2", force, res, replayID)
				}
			}
			// Once the replay fails, the slot is held only if the late
			// outcome was a success (as on a SQLite ledger).
			finish(t, h2, replayID, store.StatusFailed, t0.Add(5*time.Minute))
			res := claim(t, h3, store.ClaimRequest{Run: third})
			if late == store.StatusSucceeded {
				if res.Claimed || res.Run.ID != old {
					t.Errorf("claim after the late success = %+v, want refused, held by %d", res, old)
				}
			} else if !res.Claimed {
				t.Errorf("claim after two failures refused, holder %+v", res.Run)
			}
		})
	}
}
