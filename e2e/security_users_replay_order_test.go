package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUsersHangingReplayHoldsNoRootReplay: nobody's crontab line (task
// 0-first, first in name order) hangs when replayed, as nobody. Root's scan
// (--concurrency 1, the default, as the packaged boot unit runs it) replays
// tasks one after another in name order, so root's own missed slot (task
// mine) waited behind nobody's job for as long as nobody liked: forever,
// and with the scan still running, no timer scan came either. Root's own
// tasks now replay in a lane of their own, beside each user's (scan_lanes.go).
func TestUsersHangingReplayHoldsNoRootReplay(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	crontab := filepath.Join(top, "crontab")
	line := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		`0 * * * * catchup run --task 0-first -- sh -c 'echo $$ > started; exec sleep 3600'` + "\n"
	writeFileOf(t, crontab, line, 65534)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	ran := filepath.Join(top, "root-ran")
	root := newCatchup(t, db, "2026-01-01T00:30:00Z", "run", "--task", "mine", "--cron", "0 * * * *", "--", "touch", ran)
	if code := root.run(t); code != 0 {
		t.Fatalf("root's fire: %s", root.stderr.String())
	}
	os.Remove(ran)
	scan := newCatchup(t, db, "2026-01-01T01:30:00Z", "scan", "--crontab", crontab)
	if err := scan.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { powerCut(t, scan.cmd.Process.Pid); scan.cmd.Wait() })
	hangingJob(t, home)
	waitReplayed(t, ran, "root's", scan)
}

// TestUsersHangingReplayHoldsNoOtherUsersReplay: nobody's crontab line
// (task 0-first, first in name order) hangs when replayed, as nobody. Root's
// scan (--concurrency 1, the default, the boot unit's) replayed the lines of
// other users one after another, so daemon's line (task 1-second, uid 1)
// waited behind nobody's job for as long as nobody liked, and with the scan
// still running no timer scan came either. Each other user's lines now
// replay in a lane of that user's own. A SIGTERM to the scan still stops it,
// nobody's replay in progress recorded interrupted.
func TestUsersHangingReplayHoldsNoOtherUsersReplay(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	env := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\n"
	nobodyHome := userDir(t, top, "nobody-home", 65534, 65534)
	daemonHome := userDir(t, top, "daemon-home", 1, 1)
	crontabs := map[string]string{
		"crontab-nobody": env + "HOME=" + nobodyHome + "\n" +
			`0 * * * * catchup run --task 0-first -- sh -c 'echo $$ > started; exec sleep 3600'` + "\n",
		"crontab-daemon": env + "HOME=" + daemonHome + "\n" +
			`0 * * * * catchup run --task 1-second -- touch ran` + "\n",
	}
	owners := map[string]int{"crontab-nobody": 65534, "crontab-daemon": 1}
	var args []string
	for name, text := range crontabs {
		path := filepath.Join(top, name)
		writeFileOf(t, path, text, owners[name])
		args = append(args, "--crontab", path)
	}
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", append([]string{"scan"}, args...)...); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	scan := newCatchup(t, db, "2026-01-01T01:30:00Z", append([]string{"scan"}, args...)...)
	if err := scan.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { scan.cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			powerCut(t, scan.cmd.Process.Pid)
			<-exited
		}
	})
	hangingJob(t, nobodyHome)
	waitReplayed(t, filepath.Join(daemonHome, "ran"), "daemon's", scan)
	for deadline := time.Now().Add(waitLimit); !strings.Contains(runsOf(t, db, "1-second"), `"status": "succeeded"`); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("daemon's replay not recorded succeeded within %v: %s", waitLimit, runsOf(t, db, "1-second"))
		}
	}
	if err := syscall.Kill(scan.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(waitLimit):
		t.Fatalf("the scan did not stop within %v of SIGTERM: %s", waitLimit, scan.stderr.String())
	}
	if runs := runsOf(t, db, "0-first"); strings.Count(runs, `"status": "interrupted"`) != 1 || strings.Count(runs, `"status"`) != 1 {
		t.Errorf("nobody's replay stopped by SIGTERM: runs %s, want one interrupted; scan: %s", runs, scan.stderr.String())
	}
}

// runsOf is the history of task, as JSON.
func runsOf(t *testing.T, db, task string) string {
	t.Helper()
	p := newCatchup(t, db, "2026-01-01T01:30:00Z", "history", task, "-o", "json")
	if code := p.run(t); code != 0 {
		t.Fatalf("history %s: exit %d: %s", task, code, p.stderr.String())
	}
	return p.stdout.String()
}

// hangingJob waits for nobody's replayed job, which writes its pid to
// home/started and sleeps, and kills its process group at the test's end
// (before the scan's cleanup, which was registered first: LIFO).
func hangingJob(t *testing.T, home string) {
	t.Helper()
	var job int // nobody's job's process group (its sh, then sleep)
	waitFor(t, "nobody's replay to start", func() bool {
		b, _ := os.ReadFile(filepath.Join(home, "started"))
		job, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return job > 0
	})
	t.Cleanup(func() { syscall.Kill(-job, syscall.SIGKILL) })
}

// waitReplayed fails the test unless file ran (whose's replayed job makes
// it) appears within 20 s of nobody's hanging replay's start.
func waitReplayed(t *testing.T, ran, whose string, scan *catchupProc) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(ran); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s missed slot not replayed 20 s after nobody's replay started (it hangs): %s",
				whose, strings.TrimSpace(scan.stderr.String()))
		}
	}
}
