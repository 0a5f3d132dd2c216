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

// TestDaemonReplacedLedgerKeepsTheRunInFlight replaces the daemon's SQLite
// ledger file while one of its jobs runs: by a copy made then (its claim in
// it, running), or by a backup made before the job was claimed, restored
// without its -wal and -shm (no record of the job). The job's outcome,
// refused by the file gone, must land in the ledger now at the path (the
// claim finished, or the fire recorded as a run of its slot), so that
// neither the daemon's rescans nor a later one run the slot again.
func TestDaemonReplacedLedgerKeepsTheRunInFlight(t *testing.T) {
	for _, tc := range []struct {
		name   string
		backup bool // restore a backup made before the claim, not a copy made during the run
	}{
		{name: "copied_during_the_run"},
		{name: "backup_before_the_claim", backup: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // waits more than it works: see TestMain
			dir, db := tempLedger(t)
			h := newDaemonHost(t, db)
			// A job long enough to be caught in flight.
			line := "# catchup: task=job\n* * * * * sleep 0.8; echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> " + h.out + "\n"
			if err := os.WriteFile(h.cron, []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
			p := h.start("a")
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("daemon log:\n%s", p.stderr.String())
					t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
				}
			})
			waitFile(t, db)
			waitFor(t, "a fire recorded succeeded", func() bool {
				return ledgerRows(t, db, `SELECT COUNT(*) FROM runs WHERE task = 'job' AND status = 'succeeded'`)[0][0] != "0"
			})
			pid := p.cmd.Process.Pid
			backup := filepath.Join(dir, "backup.db")
			if tc.backup {
				quietly(t, pid, db, func() {
					if code := newCatchup(t, db, "", "backup", backup).run(t); code != 0 {
						t.Fatalf("catchup backup exited %d", code)
					}
				})
			}
			slot := inFlight(t, pid, db, func() {
				away := db + ".away"
				if err := os.Rename(db, away); err != nil {
					t.Fatal(err)
				}
				if !tc.backup {
					copyFile(t, away, db)
					return
				}
				for _, ext := range []string{"-wal", "-shm"} {
					os.Rename(db+ext, away+ext)
				}
				copyFile(t, backup, db)
			})
			waitFor(t, "the daemon to reopen the ledger and record 3 fires after it", func() bool {
				log := p.stderr.String()
				i := strings.Index(log, "event=reopen\n")
				return i >= 0 && len(claimedDone.FindAllString(log[i:], -1)) >= 3
			})
			// Rescans (every second) have had time to replay what they take for missed.
			time.Sleep(3 * time.Second)
			p.cmd.Process.Signal(syscall.SIGTERM)
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("daemon after SIGTERM: %v", err)
			}
			count, _, _ := h.written(true)
			if n := count[mustTime(t, slot)]; n != 1 {
				t.Errorf("the slot in flight as the ledger was replaced, %s, ran %d times, want once", slot, n)
			}
			if !tc.backup {
				h.checkOnce(4)
			}
			rows := ledgerRows(t, db, `SELECT status, trigger FROM runs WHERE task = 'job' AND slot = ? AND status != 'skipped'`, mustUnix(t, slot))
			if len(rows) != 1 || rows[0][0] != "succeeded" {
				t.Errorf("the ledger now at the path holds %v for slot %s, want one run that ran, succeeded", rows, slot)
			}
		})
	}
}

// inFlight freezes the daemon pid's process group while a run of the
// ledger db is running (claimed, not ended), runs fault, thaws it, and
// returns that run's slot (as the ledger holds it, RFC 3339).
func inFlight(t *testing.T, pid int, db string, fault func()) string {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("freeze the daemon: %v", err)
		}
		frozen := time.Now().Add(5 * time.Second)
		for len(unfrozen([]int{pid})) > 0 && time.Now().Before(frozen) {
			time.Sleep(10 * time.Millisecond)
		}
		var rows [][]string
		if still := unfrozen([]int{pid}); len(still) > 0 {
			t.Logf("the daemon did not freeze in 5s (still running: %v); trying again", still)
		} else {
			rows = ledgerRows(t, db, `SELECT slot FROM runs WHERE status = 'running'`)
		}
		if len(rows) == 1 {
			fault()
			syscall.Kill(-pid, syscall.SIGCONT)
			unix, err := strconv.ParseInt(rows[0][0], 10, 64)
			if err != nil {
				t.Fatalf("slot %q: %v", rows[0][0], err)
			}
			return time.Unix(unix, 0).UTC().Format(time.RFC3339)
		}
		syscall.Kill(-pid, syscall.SIGCONT)
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for a moment with a run running", waitLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mustTime parses an RFC 3339 time.
func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDaemonStoppedWhileItsLedgerWasReplaced stops the daemon (SIGTERM) as
// its ledger file is replaced by a copy in the middle of a job: the job,
// cut short, is recorded interrupted in the file now at the path (its
// outcome noted, the claim copied), and the restarted daemon replays its
// slot once. No slot runs twice, none is left.
func TestDaemonStoppedWhileItsLedgerWasReplaced(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	p := h.start("a")
	logs := []*catchupProc{p}
	h.logOnFailure(t, &logs)
	waitFile(t, db)
	waitFor(t, "a fire recorded succeeded", func() bool {
		return ledgerRows(t, db, `SELECT COUNT(*) FROM runs WHERE task = 'job' AND status = 'succeeded'`)[0][0] != "0"
	})
	slot := inFlight(t, p.cmd.Process.Pid, db, func() {
		away := db + ".away"
		if err := os.Rename(db, away); err != nil {
			t.Fatal(err)
		}
		copyFile(t, away, db)
		p.cmd.Process.Signal(syscall.SIGTERM) // taken once thawed
	})
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("daemon after SIGTERM: %v", err)
	}
	p = h.start("a")
	logs = append(logs, p)
	waitFor(t, "the restarted daemon to run 4 slots in a row after the cut one", func() bool {
		count, _, _ := h.written(false)
		return count[mustTime(t, slot)] > 0 && h.slotsInARow() >= 4
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	h.checkOnce(4)
	rows := ledgerRows(t, db, `SELECT status FROM runs WHERE task = 'job' AND slot = ? AND status != 'skipped' ORDER BY id`, mustUnix(t, slot))
	if len(rows) != 2 || rows[0][0] != "interrupted" || rows[1][0] != "succeeded" {
		t.Errorf("slot %s holds %v, want its cut run interrupted, then its replay succeeded", slot, rows)
	}
}
