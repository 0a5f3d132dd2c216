package daemon

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoopBehindReplaysTheSkippedSlotsAtOnce: a loop that wakes with
// several of its slots past (the daemon frozen, a VM resumed, the wall
// clock stepped ahead) fires the first late and skips the others, which
// no fire will ever come for: its scan replays them at once, oldest first,
// and says so. They were left to the rescans as if cron might still fire
// them: replayed only once older than --tolerance, after later slots (a
// slot that came during the late fire met its lock), and never under
// --rescan 0 (until a restart), without a word in the log.
func TestLoopBehindReplaysTheSkippedSlotsAtOnce(t *testing.T) {
	t.Parallel()
	for _, rescan := range []time.Duration{0, 100 * time.Millisecond} {
		t.Run("rescan "+rescan.String(), func(t *testing.T) {
			t.Parallel() // each on its own fixture; most of the time is the loop's real seconds
			started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
			f := newFireFixture(t, "tick", "all", started)
			f.task.Req.Argv = []string{"/bin/sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> fires.log; sleep 0.5`}
			var now atomic.Int64
			set := func(t time.Time) { now.Store(t.UnixNano()) }
			set(started.Add(20 * time.Second))
			f.d.cfg.Machine.Now = func() time.Time { return time.Unix(0, now.Load()).UTC() }
			f.d.cfg.Rate = 60 // the loop's sleeps: a clock minute is a real second
			f.d.cfg.Rescan = rescan
			f.d.cfg.Rule.FiredAfter = started
			f.d.cfg.Rule.Tolerance = 5 * time.Minute // the daemon's default

			lctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); f.d.loop(context.Background(), lctx, f.task, started, new(progress)) }()
			stopped := false
			stop := func() { // the log is read once the loop and its jobs have ended
				if !stopped {
					stopped = true
					cancel()
					<-done
					f.d.fires.Wait()
				}
			}
			defer stop()
			waitFires := func(want string) {
				t.Helper()
				deadline := time.Now().Add(30 * time.Second)
				for f.fires() != want && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if got := f.fires(); got != want {
					stop()
					t.Fatalf("the job ran for\n%swant, within 30s,\n%slog:\n%s", got, want, f.logs.String())
				}
			}
			set(started.Add(30 * time.Second)) // 10:01, on time
			waitFires("2026-03-01T10:01:00Z schedule\n")
			set(started.Add(5 * time.Minute)) // frozen from 10:01:00 to 10:05:30
			waitFires("2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule\n")
			set(started.Add(5*time.Minute + 30*time.Second)) // 10:06 comes while 10:02's late job runs
			waitFires("2026-03-01T10:01:00Z schedule\n2026-03-01T10:02:00Z schedule\n" +
				"2026-03-01T10:03:00Z replay\n2026-03-01T10:04:00Z replay\n2026-03-01T10:05:00Z replay\n" +
				"2026-03-01T10:06:00Z schedule\n")
			stop()
			if logs := f.logs.String(); !strings.Contains(logs, "slots 2026-03-01T10:03:00Z to 2026-03-01T10:05:00Z came while the daemon could not fire them") {
				t.Errorf("no warning of the skipped slots in the log:\n%s", logs)
			}
		})
	}
}
