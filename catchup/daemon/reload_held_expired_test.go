package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// TestHeldFireOfALeftSlotRunsNothing: a reload changes a line's schedule
// (* to */5) while the start's replays of 10:01 (running), 10:02 and 10:03
// (planned) go on, and the old loop's fire of 10:04 is held behind them:
// slots the new schedule lacks. The registration records 10:02 to 10:04
// expired (schedule-changed), said in the log, before it writes the new
// schedule, so that a daemon killed then leaves them named
// (daemon_reload_held_old_slot_killed); the replays and the held fire
// then find them expired and run nothing, each with a line saying so: a
// slot is never both expired and run. Before, they ran, and were recorded
// only once the old loop's fires had ended: a kill in between lost them
// without a word.
func TestHeldFireOfALeftSlotRunsNothing(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
if [ "$CATCHUP_TRIGGER" = replay ]; then while [ ! -e release ]; do sleep 0.02; done; fi`}
	started := down.Add(3 * time.Minute) // 10:03:30: 10:01, 10:02, 10:03 are the start's replays
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started
	f.d.cfg.Rule.MaxAge = 24 * time.Hour

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &tasks{d: f.d, ctx: ctx, running: map[string]*scheduled{}}
	waitFor := f.waiter(t)
	s.set([]Task{f.task}, started)
	waitFor("the first replay", func() bool { return strings.Contains(f.fires(), "10:01:00Z replay") })
	slot := started.Add(30 * time.Second) // 10:04: its fire held behind the replays
	read := slot.Add(10 * time.Second)
	set(read)
	old := s.running["tick"]
	waitFor("the old loop to fire 10:04", func() bool { return !old.through.get().Before(slot) })

	changed := f.task
	changed.Def.Schedule = "*/5 * * * *"
	var err error
	if changed.Sched, err = schedule.Parse(changed.Def.Schedule, time.UTC); err != nil {
		t.Fatal(err)
	}
	if changed.Def, changed.Replaced, err = catchup.RegisterDaemonTask(ctx, f.st, f.d.cfg.Machine, changed.Def, false, read); err != nil {
		t.Fatal(err)
	}
	if got := records(t, f.st); !slices.Contains(got, "10:04 expired "+store.ReasonScheduleChanged) ||
		!slices.Contains(got, "10:02 expired "+store.ReasonScheduleChanged) {
		t.Fatalf("after the registration: records %q, want 10:02 to 10:04 expired (schedule-changed)", got)
	}
	s.set([]Task{changed}, read)
	if err := os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	set(started.Add(90 * time.Second).Add(10 * time.Second)) // 10:05:10: the new loop's slot
	waitFor("10:05's fire", func() bool { return strings.Contains(f.fires(), "10:05:00Z schedule") })
	waitFor("the held fire's line", func() bool {
		return strings.Contains(f.logs.String(), "slot 2026-03-01T10:04:00Z of tick was recorded expired meanwhile (schedule-changed); not running it")
	})
	cancel()
	s.loops.Wait()
	f.d.fires.Wait()
	s.left.Wait()

	want := "2026-03-01T10:01:00Z replay\n2026-03-01T10:05:00Z schedule\n"
	if got := f.fires(); got != want {
		t.Errorf("the job ran for\n%swant\n%slog:\n%s", got, want, f.logs.String())
	}
	x := " expired " + store.ReasonScheduleChanged
	wantRecords := []string{"10:01 succeeded ", "10:02" + x, "10:03" + x, "10:04" + x, "10:05 succeeded "}
	if got := records(t, f.st); !slices.Equal(got, wantRecords) {
		t.Errorf("records %q, want %q; log:\n%s", got, wantRecords, f.logs.String())
	}
	for _, line := range []string{
		"task tick: 3 slots missed under its old schedule (2026-03-01T10:02:00Z to 2026-03-01T10:04:00Z) are recorded expired (schedule-changed)",
		"slot 2026-03-01T10:03:00Z of tick was recorded expired meanwhile (schedule-changed); not replaying it",
	} {
		if !strings.Contains(f.logs.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, f.logs.String())
		}
	}
}

// records are the ledger's runs of tick, "15:04 status reason", sorted.
func records(t *testing.T, st store.Store) []string {
	t.Helper()
	runs, err := st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Slot.UTC().Format("15:04")+" "+string(r.Status)+" "+r.Reason)
	}
	slices.Sort(got)
	return got
}
