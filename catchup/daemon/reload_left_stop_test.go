package daemon

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// TestStoppedBeforeTheNewLoopFiredWhatTheOldLeft: a line changed (* to
// */2) while its old loop's job runs, and changed back at 10:04:30 before
// the */2 loop began (it waits for that job): */2's slot 10:04, which *
// has too, is left to the new loop's fire, late (not recorded expired).
// The daemon stops (SIGTERM; a SIGKILL or a power cut the same) before
// that loop fires it. Before, the new registration counted from 10:04:30,
// so 10:04 lay at or before its watermark with no record: no reader saw it
// missed, no start or scan replayed it, and nothing said so. Now the new
// schedule counts from just before 10:04, the oldest slot left to the new
// loop's fire: the next start or scan finds it missed and replays it.
func TestStoppedBeforeTheNewLoopFiredWhatTheOldLeft(t *testing.T) {
	t.Parallel()
	reloads := 0
	lf := newLeftFixture(t, func(lf *leftFixture) []Task {
		reloads++
		if reloads == 1 {
			lf.c.set(lf.started.Add(2 * time.Minute)) // 10:02:30
			return []Task{lf.every("*/2 * * * *")}
		}
		lf.c.set(lf.started.Add(4 * time.Minute)) // 10:04:30
		return []Task{lf.every("* * * * *")}
	})
	lf.firstTwoFires()
	lf.hup <- syscall.SIGHUP
	lf.waitFor("the first reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 1 })
	lf.hup <- syscall.SIGHUP
	lf.waitFor("the second reload", func() bool { return strings.Count(lf.logs.String(), "crontabs reloaded") == 2 })
	lf.touch("alert-go")
	lf.stop <- syscall.SIGTERM // 10:01's job is stopped: the new loop never began
	<-lf.done

	if strings.Contains(lf.fires(), "10:04:00Z") {
		t.Fatalf("10:04 was fired: the test stopped the daemon too late; fires:\n%s", lf.fires())
	}
	lf.c.set(lf.started.Add(4*time.Minute + 20*time.Second)) // 10:04:50, the next start
	all, err := catchup.List(context.Background(), lf.st, lf.m, catchup.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var missed []string
	for _, ts := range all {
		for i, s := range ts.Missed {
			missed = append(missed, s.UTC().Format("15:04")+" "+ts.Causes[i])
		}
	}
	recs := strings.Join(lf.records(), "|")
	if !strings.Contains(recs, "10:04") && !strings.Contains(strings.Join(missed, "|"), "10:04") {
		t.Errorf("10:04, left to the new loop's fire that never came, is neither recorded nor missed: dropped silently; "+
			"missed %q, records %q; log:\n%s", missed, recs, lf.logs.String())
	}
	if strings.Contains(recs, "10:04 "+string(store.StatusExpired)) {
		t.Errorf("10:04 recorded expired: the new line has it (records %q)", recs)
	}
	if !strings.Contains(strings.Join(missed, "|"), "10:04 ") {
		t.Errorf("10:04 is not missed, for the next start to replay: missed %q, records %q", missed, recs)
	}
}
