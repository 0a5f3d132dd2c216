package e2e

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonReopensReplacedLedger deletes the daemon's SQLite ledger's
// -shm, or replaces its file by a copy (moved away, copied back), while the
// daemon runs: its writes are refused (ErrIndexReplaced, ErrLedgerMoved),
// and it reopens the ledger at its path, saying so once, so that its later
// fires are recorded there again without a restart; no slot runs twice.
func TestDaemonReopensReplacedLedger(t *testing.T) {
	for _, tc := range []struct {
		name  string
		quiet bool // replaced while no run is in flight: a claim in a file gone is not noted
		fault func(t *testing.T, db string)
	}{
		{name: "shm_deleted", fault: func(t *testing.T, db string) {
			if err := os.Remove(db + "-shm"); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "file_replaced", quiet: true, fault: func(t *testing.T, db string) {
			away := db + ".away"
			if err := os.Rename(db, away); err != nil {
				t.Fatal(err)
			}
			copyFile(t, away, db)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // waits more than it works: see TestMain
			_, db := tempLedger(t)
			h := newDaemonHost(t, db)
			p := h.start("a")
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("daemon log:\n%s", p.stderr.String())
					t.Logf("job output:\n%s", strings.Join(readLines(t, h.out), "\n"))
				}
			})
			succeeded := func() int {
				n, _ := strconv.Atoi(ledgerRows(t, db, `SELECT COUNT(*) FROM runs WHERE task = 'job' AND status = 'succeeded'`)[0][0])
				return n
			}
			waitFile(t, db) // created whole by the daemon
			waitFor(t, "two fires recorded succeeded", func() bool { return succeeded() >= 2 })
			if tc.quiet {
				quietly(t, p.cmd.Process.Pid, db, func() { tc.fault(t, db) })
			} else {
				tc.fault(t, db)
			}
			// Fires recorded by their own claim (run=N, not run=0: unrecorded,
			// noted) after the first write the fault refused.
			recorded := func() int {
				log := p.stderr.String()
				i := refusedAt(log)
				if i < 0 {
					return 0
				}
				return len(claimedDone.FindAllString(log[i:], -1))
			}
			deadline := time.Now().Add(40 * time.Second)
			for recorded() < 3 {
				if time.Now().After(deadline) {
					t.Fatalf("%d fires recorded in 40s after the ledger's first refusal: the daemon did not reopen it", recorded())
				}
				time.Sleep(100 * time.Millisecond)
			}
			p.cmd.Process.Signal(syscall.SIGTERM)
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("daemon after SIGTERM: %v", err)
			}
			h.checkOnce(5)
			rows := ledgerRows(t, db, `SELECT slot, COUNT(*) FROM runs WHERE task = 'job' AND status = 'succeeded' GROUP BY slot HAVING COUNT(*) > 1`)
			if len(rows) > 0 {
				t.Errorf("slots that succeeded twice in the ledger: %v", rows)
			}
			log := p.stderr.String()
			if n := strings.Count(log, "event=reopen\n"); n != 1 {
				t.Errorf("the daemon said %d times that it reopened the ledger, want once", n)
			} else if after := log[strings.Index(log, "event=reopen\n"):]; claimedDone.FindStringIndex(after) == nil {
				t.Errorf("no fire recorded after the daemon reopened the ledger")
			} else if refusedAt(after[claimedDone.FindStringIndex(after)[0]:]) >= 0 {
				// a refusal its caller reports after the reopen is of the old ledger
				t.Errorf("a write refused once the reopened ledger recorded a fire")
			}
			if succeeded() < 5 {
				t.Errorf("%d runs recorded succeeded, want at least 5", succeeded())
			}
		})
	}
}

// claimedDone is a fire's end recorded on the run its claim wrote.
var claimedDone = regexp.MustCompile(`event=done task=job slot=\S+ run=[1-9]`)

// refusedAt is where the daemon's log first says the ledger refused a
// write because its file or -shm was replaced; -1 if it never did.
func refusedAt(log string) int {
	i, j := strings.Index(log, "its WAL index changed"), strings.Index(log, "deleted or replaced since catchup opened it")
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// quietly runs fault while the daemon pid is frozen with no run of the
// ledger db running (none claimed and not yet ended), then thaws it.
func quietly(t *testing.T, pid int, db string, fault func()) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("freeze the daemon: %v", err)
		}
		waitFor(t, "the daemon to freeze", func() bool { return len(unfrozen([]int{pid})) == 0 })
		running := ledgerRows(t, db, `SELECT COUNT(*) FROM runs WHERE status = 'running'`)[0][0]
		if running == "0" {
			fault()
			syscall.Kill(-pid, syscall.SIGCONT)
			return
		}
		syscall.Kill(-pid, syscall.SIGCONT)
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for a moment with no run running", waitLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// copyFile copies src to a new file dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
