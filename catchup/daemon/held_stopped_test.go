package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// TestHeldFireStoppedIsLockBusy: a fire held back behind its task's own
// running job (here the start's replay) that the daemon stops before its
// turn ran nothing: its slot's story is that its fire came and found the
// task busy. It was recorded nowhere, so ls --missed, explain, scan and
// metrics all called it not-fired ("the host was up but nothing fired
// it"); it is recorded as a lock skip (exit 75), lock-busy everywhere.
func TestHeldFireStoppedIsLockBusy(t *testing.T) {
	t.Parallel()
	down := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", down)
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
if [ "$CATCHUP_TRIGGER" = replay ]; then while [ ! -e release ]; do sleep 0.02; done; fi`}
	started := down.Add(3 * time.Minute) // 10:03:30: 10:01 to 10:03 are the start's replays
	set := f.movableClock(started)
	f.d.cfg.Rule.FiredAfter = started
	f.d.cfg.Rule.MaxAge = 24 * time.Hour

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	through := new(progress)
	done := make(chan struct{})
	go func() { defer close(done); f.d.loop(ctx, lctx, f.task, started, through) }()
	waitFor := f.waiter(t)
	// The replay's job writes its line before the daemon has tracked it
	// as running (under -race, with tests beside it, a slot moved to at
	// once found the task not busy): the held fires' slots come once it is.
	waitFor("the first replay, tracked as the task's running job", func() bool {
		return strings.Contains(f.fires(), "10:01:00Z replay") && f.d.taskBusy("tick")
	})
	held := []time.Time{started.Add(30 * time.Second), started.Add(90 * time.Second)} // 10:04, 10:05
	for _, slot := range held {
		set(slot)
		waitFor("the loop to fire "+slot.Format(time.Kitchen), func() bool { return !through.get().Before(slot) })
	}
	time.Sleep(100 * time.Millisecond) // the fires are held behind the replay
	stop()                             // the daemon stops: its held fires never get their turn
	if err := os.WriteFile(filepath.Join(f.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	<-done
	f.d.fires.Wait()
	if strings.Contains(f.fires(), "schedule") {
		t.Fatalf("a held fire ran after the stop:\n%s", f.fires())
	}

	m := f.d.cfg.Machine
	m.Now = func() time.Time { return started.Add(10 * time.Minute) }
	for _, slot := range held {
		ex, err := catchup.Explain(context.Background(), f.st, m, catchup.ExplainRequest{Task: "tick", Slot: slot})
		if err != nil {
			t.Fatal(err)
		}
		if ex.Cause != catchup.CauseLockBusy {
			t.Errorf("explain %s: cause %q (%s), want %q; log:\n%s", slot.Format(time.RFC3339), ex.Cause, ex.Summary, catchup.CauseLockBusy, f.logs.String())
		}
	}
	list, err := catchup.List(context.Background(), f.st, m, catchup.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	causes := map[time.Time]string{}
	for _, ts := range list {
		for i, s := range ts.Missed {
			causes[s] = ts.Causes[i]
		}
	}
	for _, slot := range held {
		if got := causes[slot]; got != catchup.CauseLockBusy {
			t.Errorf("ls --missed %s: cause %q, want %q", slot.Format(time.RFC3339), got, catchup.CauseLockBusy)
		}
	}
	runs, err := f.st.History(context.Background(), store.HistoryFilter{Task: "tick", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Trigger == "schedule" && (r.Status != store.StatusSkipped || r.ExitCode == nil || *r.ExitCode != 75) {
			t.Errorf("held fire of %s recorded %s %v %q; want skipped, exit 75", r.Slot.Format(time.RFC3339), r.Status, r.ExitCode, r.Error)
		}
	}
}
