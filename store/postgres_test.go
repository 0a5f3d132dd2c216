package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// openPG opens the PostgreSQL ledger at dsn as one more "host", closed when
// the test ends.
func openPG(t testing.TB, dsn string) *store.Postgres {
	t.Helper()
	p, err := store.OpenPostgres(context.Background(), dsn)
	if err != nil {
		t.Fatalf("OpenPostgres(%s): %v", store.SafeLocation(dsn), err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Five hosts, each its own OpenPostgres, fire the same 20 slots at the same
// instant, every slot in a goroutine of its own: each slot is claimed once,
// and every loser is told which host holds it.
func TestPostgresConcurrentHosts(t *testing.T) {
	const hosts, slots, rounds = 5, 20, 3
	dsn := pgLedger(t)
	ledgers := make([]*store.Postgres, hosts)
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
		var losers []store.Run            // holders reported to losers
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
	others := make([]*store.Postgres, claimers)
	for i := range others {
		others[i] = openPG(t, dsn)
	}
	for _, outcome := range []string{store.StatusSucceeded, store.StatusFailed, store.StatusSucceeded, store.StatusFailed} {
		slot := t0.Add(time.Duration(len(outcome)) * time.Hour).Add(time.Duration(time.Now().UnixNano()%1000) * time.Minute)
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

func TestPostgresLockTask(t *testing.T) {
	dsn := pgLedger(t)
	a, b := openPG(t, dsn), openPG(t, dsn)
	ctx := t.Context()
	lock := func(s *store.Postgres, task string, want bool) func() {
		t.Helper()
		release, ok, err := s.LockTask(ctx, task)
		if err != nil {
			t.Fatalf("LockTask(%s): %v", task, err)
		}
		if ok != want {
			t.Fatalf("LockTask(%s) ok = %v, want %v", task, ok, want)
		}
		if release == nil {
			t.Fatalf("LockTask(%s) returned a nil release", task)
		}
		return release
	}
	relA := lock(a, "backup", true)
	lock(b, "backup", false)()
	lock(a, "backup", false)() // a second run on the same host is excluded too
	relB := lock(b, "rotate", true)
	relA()
	relA() // releasing twice is harmless
	relB2 := lock(b, "backup", true)
	lock(a, "rotate", false)
	relB()
	relB2()
	lock(a, "rotate", true)()

	// Close drops the locks still held.
	c := openPG(t, dsn)
	lock(c, "report", true)
	lock(a, "report", false)
	c.Close()
	lock(a, "report", true)()

	// A ledger in another schema of the same database is another fleet.
	other := openPG(t, pgLedger(t))
	rel := lock(a, "backup", true)
	lock(other, "backup", true)()
	rel()
}

func TestPostgresHeartbeat(t *testing.T) {
	s := openPG(t, pgLedger(t))
	ctx := t.Context()
	started := t0.Add(250 * time.Millisecond)
	id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: started})
	heartbeat := func() time.Time {
		t.Helper()
		running, err := s.Running(ctx)
		if err != nil || len(running) != 1 || running[0].ID != id {
			t.Fatalf("Running = %+v, %v", running, err)
		}
		return running[0].Heartbeat
	}
	if hb := heartbeat(); !hb.Equal(started) || hb.Location() != time.UTC {
		t.Errorf("heartbeat after claim = %v, want the start %v", hb, started)
	}
	beat := t0.Add(10*time.Second + 7*time.Millisecond)
	if err := s.Heartbeat(ctx, id, beat); err != nil {
		t.Fatal(err)
	}
	if hb := heartbeat(); !hb.Equal(beat) {
		t.Errorf("heartbeat = %v, want %v", hb, beat)
	}
	finish(t, s, id, store.StatusSucceeded, t0.Add(time.Minute))
	if err := s.Heartbeat(ctx, id, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := getRun(t, s, id); !got.Heartbeat.Equal(beat) {
		t.Errorf("heartbeat of a finished run moved to %v", got.Heartbeat)
	}
	if err := s.Heartbeat(ctx, 999999, t0); err != nil {
		t.Errorf("Heartbeat(unknown) = %v", err)
	}
	if !s.Shared() {
		t.Error("Shared() = false")
	}
}

// PostgreSQL text holds neither NUL nor invalid UTF-8: an outcome whose
// error has them is still recorded.
func TestPostgresOddErrorText(t *testing.T) {
	s := openPG(t, pgLedger(t))
	id := mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0})
	err := s.Finish(t.Context(), id, store.Outcome{Status: store.StatusFailed, EndedAt: t0, Error: "a\x00b\xffc ☃"})
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if got := getRun(t, s, id).Error; got != "a\uFFFDb\uFFFDc ☃" {
		t.Errorf("Error = %q", got)
	}
	changed, err := s.Interrupt(t.Context(), mustClaim(t, s, store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}), t0, "\x00")
	if err != nil || !changed {
		t.Errorf("Interrupt = %v, %v", changed, err)
	}
}

func TestPostgresErrorsHidePassword(t *testing.T) {
	base := pgBaseDSN(t)
	_ = base
	for _, dsn := range []string{
		"postgres://postgres:secret@127.0.0.1:1/test?sslmode=disable",
		"postgres://postgres@127.0.0.1:1/test?sslmode=disable&password=secret",
		"postgresql://postgres:secret@127.0.0.1:1/test?sslmode=disable&connect_timeout=2",
		"host=127.0.0.1 port=1 user=postgres password=secret dbname=test sslmode=disable",
		"postgres://postgres:secret@127.0.0.1:notaport/test",
		"postgres://postgres:secret@[::1/test",
		"postgres://postgres:secret@127.0.0.1:1/test?sslmode=bogus",
		"host=127.0.0.1 password='secret",
	} {
		t.Run(dsn, func(t *testing.T) {
			s, err := store.OpenPostgres(t.Context(), dsn)
			if err == nil {
				s.Close()
				t.Fatal("OpenPostgres succeeded")
			}
			t.Logf("error: %v", err)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error text leaks the password: %v", err)
			}
			if loc := store.SafeLocation(dsn); strings.Contains(loc, "secret") {
				t.Errorf("SafeLocation = %q", loc)
			}
		})
	}
	t.Run("names the ledger", func(t *testing.T) {
		_, err := store.Open(t.Context(), "postgres://postgres:secret@127.0.0.1:1/test?sslmode=disable")
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/test") {
			t.Errorf("error %v does not name 127.0.0.1:1/test", err)
		}
		if got := store.SafeLocation("postgres://u:secret@db.example:6432/ledger?sslmode=require"); got != "db.example:6432/ledger" {
			t.Errorf("SafeLocation = %q", got)
		}
	})
}

func TestPostgresSchemaTooNew(t *testing.T) {
	dsn := pgLedger(t)
	s := openPG(t, dsn)
	id := mustClaim(t, s, store.Run{Task: "backup", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
	s.Close()
	admin := pgAdmin(t, dsn)
	ctx := t.Context()
	if _, err := admin.Exec(ctx, `INSERT INTO schema_version (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		t.Helper()
		var out string
		err := admin.QueryRow(ctx, `SELECT
 (SELECT string_agg(relname || ':' || relkind, ',' ORDER BY relname) FROM pg_class WHERE relnamespace = current_schema()::regnamespace)
 || ' versions ' || (SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_version)
 || ' runs ' || (SELECT string_agg(id || status || xmin::text, ',' ORDER BY id) FROM runs)
 || ' slots ' || (SELECT string_agg(task || running_id || xmin::text, ',') FROM slots)`).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := snapshot()
	s2, err := store.OpenPostgres(ctx, dsn)
	if err == nil {
		s2.Close()
		t.Fatal("OpenPostgres of a version 99 ledger succeeded")
	}
	if !errors.Is(err, store.ErrSchemaTooNew) {
		t.Errorf("error %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1") && !strings.Contains(err.Error(), "localhost") {
		t.Errorf("error %q does not name the ledger", err)
	}
	if after := snapshot(); after != before {
		t.Errorf("a refused open changed the ledger:\nbefore %s\nafter  %s", before, after)
	}
	_ = id
}

// Hosts that start together on a new ledger all open it; it is migrated
// once.
func TestPostgresConcurrentFirstOpen(t *testing.T) {
	const procs = 8
	dsn := pgLedger(t)
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for i := range procs {
		wg.Go(func() {
			s, err := store.OpenPostgres(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	var versions []int
	rows, err := pgAdmin(t, dsn).Query(t.Context(), `SELECT version FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	if rows.Err() != nil || fmt.Sprint(versions) != "[1]" {
		t.Errorf("schema_version rows = %v (%v), want [1]", versions, rows.Err())
	}
}
