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
// tasks are now replayed first.
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
	if err := os.WriteFile(crontab, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 65534, 65534); err != nil {
		t.Fatal(err)
	}
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
	var job int // nobody's job's process group (its sh, then sleep)
	waitFor(t, "nobody's replay to start", func() bool {
		b, _ := os.ReadFile(filepath.Join(home, "started"))
		job, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return job > 0
	})
	t.Cleanup(func() { syscall.Kill(-job, syscall.SIGKILL) }) // before the scan's (LIFO)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(ran); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("root's missed slot not replayed 20 s after nobody's replay started (it hangs): %s",
		strings.TrimSpace(scan.stderr.String()))
}
