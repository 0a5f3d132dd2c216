package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// TestBacklogGivesOtherTasksTheirTurn: under --concurrency, a task's scan
// held its place through every replay of its backlog, so another task's
// fire (or scan) waited for the whole backlog: with --concurrency 1 after
// a downtime of 100 slots of a one-minute job, every other task's fires
// were 100 minutes late, one task blocked behind another. A scan now takes
// its turn again before each replay after the first: the other task's fire
// runs between two replays, and the backlog still runs oldest first, once.
func TestBacklogGivesOtherTasksTheirTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFireFixture(t, "a", "all", time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC))
	f.d.limiter = make(chan struct{}, 1) // --concurrency 1
	// a's replays after the first wait up to 3 s for b's job: without a
	// turn between them, b runs only after the whole backlog.
	f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log
[ "$CATCHUP_SLOT" = 2026-03-01T10:01:00Z ] && exit 0
i=0; while [ ! -e b.log ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done`}
	bArgv := []string{"/bin/sh", "-c", `grep -c replay fires.log > b.log`}
	sched, err := schedule.Parse("* * * * *", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	def := store.Task{Name: "b", Schedule: "* * * * *", TZ: "UTC", Replay: "all", Argv: bArgv, Dir: f.dir, Source: "daemon:test:2"}
	if def, _, err = catchup.RegisterDaemonTask(ctx, f.st, f.d.cfg.Machine, def, false, time.Time{}); err != nil {
		t.Fatal(err)
	}
	b := Task{Def: def, Sched: sched, Req: catchup.RunRequest{Task: "b", Argv: bArgv, Dir: f.dir}}
	f.movableClock(time.Date(2026, 3, 1, 10, 5, 30, 0, time.UTC)) // a owes 10:01 to 10:05
	waitFor := f.waiter(t)

	scanned := make(chan struct{})
	go func() { defer close(scanned); f.d.scan(ctx, f.task, time.Time{}, time.Time{}) }()
	waitFor("a's first replay", func() bool { return strings.Contains(f.fires(), "10:01:00Z replay") })
	fired := make(chan struct{})
	go func() { defer close(fired); f.d.fire(ctx, b, time.Date(2026, 3, 1, 10, 5, 0, 0, time.UTC)) }()
	<-fired
	<-scanned
	got, err := os.ReadFile(filepath.Join(f.dir, "b.log"))
	if err != nil {
		t.Fatalf("b's job did not run: %v\n%s", err, f.logs.String())
	}
	if n := strings.TrimSpace(string(got)); n == "5" {
		t.Errorf("b's fire ran after all 5 of a's replays, want between them:\n%s", f.fires())
	}
	if want := "2026-03-01T10:01:00Z replay\n2026-03-01T10:02:00Z replay\n2026-03-01T10:03:00Z replay\n" +
		"2026-03-01T10:04:00Z replay\n2026-03-01T10:05:00Z replay\n"; f.fires() != want {
		t.Errorf("a's replays:\n%s\nwant each slot once, oldest first:\n%s", f.fires(), want)
	}
}
