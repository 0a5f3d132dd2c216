package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// owedFixture is a ledger with task "job", a machine whose alerts append
// "TASK|EXPIRED|EXPIRED_SLOTS|MISSED_CAUSES" to a file, and its notices.
type owedFixture struct {
	st      store.Store
	m       Machine
	alerts  string
	notices []string
}

func newOwedFixture(t *testing.T) *owedFixture {
	t.Helper()
	f := newRunFixture(t, "2026-03-01T12:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	o := &owedFixture{st: f.st, m: f.m, alerts: filepath.Join(t.TempDir(), "alerts")}
	o.m.Notice = func(format string, args ...any) { o.notices = append(o.notices, fmt.Sprintf(format, args...)) }
	return o
}

// cmd is the alert command of the fixture.
func (o *owedFixture) cmd() string {
	return `echo "$CATCHUP_TASK|$CATCHUP_EXPIRED|$CATCHUP_EXPIRED_SLOTS|$CATCHUP_MISSED_CAUSES" >> ` + o.alerts
}

// expireAs records the given hours of 2026-03-01 expired by the scan of pid.
func (o *owedFixture) expireAs(t *testing.T, pid int, hours ...int) {
	t.Helper()
	var runs []store.Run
	for _, h := range hours {
		at := time.Date(2026, 3, 1, h, 0, 0, 0, time.UTC)
		runs = append(runs, store.Run{Task: "job", Slot: at, Trigger: store.TriggerReplay, Status: store.StatusExpired,
			Attempt: 1, StartedAt: o.m.Now(), EndedAt: o.m.Now(), Host: o.m.Host, PID: pid, BootID: o.m.BootID,
			Error: "too old", Reason: store.ReasonMaxAge})
	}
	if _, err := o.st.AddRuns(context.Background(), runs); err != nil {
		t.Fatal(err)
	}
}

// owe keeps the alert of the given hours owed by the scan of pid.
func (o *owedFixture) owe(t *testing.T, pid int, hours ...int) string {
	t.Helper()
	m := o.m
	m.PID = pid
	var ex expirySpan
	for _, h := range hours {
		at := time.Date(2026, 3, 1, h, 0, 0, 0, time.UTC)
		ex.slots, ex.causes = append(ex.slots, at), append(ex.causes, "host-down")
	}
	owed := oweAlert(m, o.cmd(), store.Task{Name: "job"}, store.Task{Name: "job"}, "all", []expirySpan{ex}, false)
	if owed == nil {
		t.Fatalf("no alert owed; notices: %q", o.notices)
	}
	return owed.path
}

// pruneAll prunes every run that ended by an hour from now but the latest,
// as a prune on another host would (the owed alerts of this one unseen).
func (o *owedFixture) pruneAll(t *testing.T) {
	t.Helper()
	if _, err := o.st.Prune(context.Background(), store.PruneRequest{Before: o.m.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

func (o *owedFixture) sent(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(o.alerts)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPayOwedAlerts(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		setup     func(t *testing.T, o *owedFixture) (kept []string)
		wantSent  string
		wantNotes []string // each in some notice
	}{
		"a killed scan's expiries are alerted": {
			setup: func(t *testing.T, o *owedFixture) []string {
				o.owe(t, deadPID, 1, 2, 3)
				o.expireAs(t, deadPID, 1, 2, 3)
				return nil
			},
			wantSent:  "job|3|2026-03-01T01:00:00Z 2026-03-01T02:00:00Z 2026-03-01T03:00:00Z|host-down host-down host-down\n",
			wantNotes: []string{"3 slots that catchup (pid 4194305) recorded expired were never alerted"},
		},
		"killed between two batches: the recorded ones only": {
			setup: func(t *testing.T, o *owedFixture) []string {
				o.owe(t, deadPID, 1, 2, 3)
				o.expireAs(t, deadPID, 1)
				return nil
			},
			wantSent: "job|1|2026-03-01T01:00:00Z|host-down\n",
		},
		"killed before its first expiry: nothing to alert": {
			setup: func(t *testing.T, o *owedFixture) []string {
				o.owe(t, deadPID, 1, 2)
				return nil
			},
		},
		"another scan's expiries are its own to alert": {
			setup: func(t *testing.T, o *owedFixture) []string {
				o.owe(t, deadPID, 1, 2)
				o.expireAs(t, deadPID-1, 1, 2)
				return nil
			},
		},
		"its records pruned since, by a prune elsewhere: alerted as planned": {
			setup: func(t *testing.T, o *owedFixture) []string {
				o.owe(t, deadPID, 1, 2)
				o.expireAs(t, deadPID, 1, 2)
				o.pruneAll(t)
				return nil
			},
			wantSent:  "job|2|2026-03-01T01:00:00Z 2026-03-01T02:00:00Z|host-down host-down\n",
			wantNotes: []string{"1 slots that catchup (pid 4194305) recorded expired were pruned from the ledger before their alert ran", "2 slots that catchup (pid 4194305) recorded expired were never alerted"},
		},
		"killed before its first expiry, then a prune: nothing to alert": {
			setup: func(t *testing.T, o *owedFixture) []string {
				o.owe(t, deadPID, 13, 14) // later than any slot the prune passed
				o.pruneAll(t)
				return nil
			},
		},
		"a torn file is removed, the others still alerted": {
			setup: func(t *testing.T, o *owedFixture) []string {
				whole := o.owe(t, deadPID, 1)
				o.expireAs(t, deadPID, 1)
				b, err := os.ReadFile(whole)
				if err != nil {
					t.Fatal(err)
				}
				torn := o.owe(t, deadPID, 2) // cut short by a kill: nothing of it committed
				if err := os.WriteFile(torn, b[:len(b)/2], 0o600); err != nil {
					t.Fatal(err)
				}
				empty := o.owe(t, deadPID, 3)
				if err := os.WriteFile(empty, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				junk := o.owe(t, deadPID, 4)
				if err := os.WriteFile(junk, []byte(`{"task":"job","slots":[1,2],"causes":["x"]}`), 0o600); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			wantSent:  "job|1|2026-03-01T01:00:00Z|host-down\n",
			wantNotes: []string{"is cut short", "slots and causes out of step"},
		},
		"a live scan's alert is left to it": {
			setup: func(t *testing.T, o *owedFixture) []string {
				live := o.owe(t, os.Getpid(), 1)
				o.expireAs(t, os.Getpid(), 1)
				return []string{live}
			},
		},
		"one others could write is refused and kept": {
			setup: func(t *testing.T, o *owedFixture) []string {
				writable := o.owe(t, deadPID, 1)
				o.expireAs(t, deadPID, 1)
				if err := os.Chmod(writable, 0o622); err != nil {
					t.Fatal(err)
				}
				return []string{writable}
			},
			wantNotes: []string{"writable by others"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o := newOwedFixture(t)
			kept := tc.setup(t, o)
			o.m.PID = os.Getpid() // the next scan
			payOwedAlerts(context.Background(), o.st, o.m)
			if got := o.sent(t); got != tc.wantSent {
				t.Errorf("alerts sent:\n%q\nwant:\n%q", got, tc.wantSent)
			}
			for _, want := range tc.wantNotes {
				if !strings.Contains(strings.Join(o.notices, "\n"), want) {
					t.Errorf("no notice says %q; notices: %q", want, o.notices)
				}
			}
			left, _ := filepath.Glob(filepath.Join(o.m.LockDir, owedAlertPrefix+"*"))
			if strings.Join(left, " ") != strings.Join(kept, " ") {
				t.Errorf("owed alerts left %q, want %q", left, kept)
			}
			payOwedAlerts(context.Background(), o.st, o.m)
			if got := o.sent(t); got != tc.wantSent {
				t.Errorf("a second payment sent again:\n%q", got)
			}
		})
	}
}

// TestOwedAlertOfScanFailedBetweenBatches: a scan that fails (or is
// killed) after its first batch of expiries, before its alert, leaves the
// alert of that batch to the next scan, which sends it with its own. Also
// when both scans run in one long-lived process (a daemon's): its pid
// stays alive, and before, every later scan took the file for a live
// scan's and left it until the daemon's restart.
func TestOwedAlertOfScanFailedBetweenBatches(t *testing.T) {
	t.Parallel()
	for name, failedPID := range map[string]int{
		"killed, its pid gone":             deadPID,
		"failed in this process, a daemon": os.Getpid(),
	} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-01-01T00:00:30Z")
			req := f.request(t)
			req.Schedule = mustSchedule(t, "* * * * *", "UTC")
			if res := f.run(t, req); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			f.now = f.now.Add(10 * 24 * time.Hour)
			alerts := filepath.Join(t.TempDir(), "alerts")
			sr := scanRequest()
			sr.MaxReplays = 1
			sr.NotifyCmd = `echo "$CATCHUP_EXPIRED" >> ` + alerts
			failed := f.m
			failed.PID = failedPID
			if _, err := Scan(context.Background(), &failingSecondBatch{Store: f.st}, failed, sr); err == nil {
				t.Fatal("the scan whose ledger failed between two batches reported no error")
			}
			if _, err := os.Stat(alerts); !os.IsNotExist(err) {
				t.Fatalf("the failed scan alerted (%v): this test needs it not to", err)
			}
			f.m.PID = os.Getpid()
			if _, err := Scan(context.Background(), f.st, f.m, sr); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(alerts)
			if err != nil {
				t.Fatal(err)
			}
			want := 10*24*60 - 5 - 1 - expireBatch // the next scan's own expiries
			if got, w := string(b), fmt.Sprintf("%d\n%d\n", expireBatch, want); got != w {
				t.Errorf("alerts sent %q, want the failed scan's batch, then the next scan's own: %q", got, w)
			}
			if left, _ := filepath.Glob(filepath.Join(f.m.LockDir, owedAlertPrefix+"*")); len(left) != 0 {
				t.Errorf("owed alerts left: %q", left)
			}
		})
	}
}

func TestOweAlertOwesNothing(t *testing.T) {
	t.Parallel()
	slot := []expirySpan{{slots: []time.Time{time.Date(2026, 3, 1, 1, 0, 0, 0, time.UTC)}}}
	tests := map[string]struct {
		cmd string
		ex  []expirySpan
		dry bool
	}{
		"a dry run records nothing": {cmd: "true", ex: slot, dry: true},
		"no alert command":          {cmd: "", ex: slot},
		"no expiry":                 {cmd: "true"},
		"owed, then paid":           {cmd: "true", ex: slot},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := testMachine(filepath.Join(t.TempDir(), "c.db"), time.Now())
			m.UID = os.Geteuid()
			owed := oweAlert(m, tc.cmd, store.Task{Name: "job"}, store.Task{Name: "job"}, "all", tc.ex, tc.dry)
			left, _ := filepath.Glob(filepath.Join(m.LockDir, owedAlertPrefix+"*"))
			wantOwed := tc.cmd != "" && len(tc.ex) > 0 && !tc.dry
			if (owed != nil) != wantOwed || len(left) != len(owed.paths()) {
				t.Fatalf("owed %v, files %q; want owed %v", owed != nil, left, wantOwed)
			}
			owed.paid(m)
			if left, _ := filepath.Glob(filepath.Join(m.LockDir, owedAlertPrefix+"*")); len(left) != 0 {
				t.Errorf("paid, files %q left", left)
			}
		})
	}
}

// paths lists the file of o (none for nil).
func (o *owedAlertFile) paths() []string {
	if o == nil {
		return nil
	}
	return []string{o.path}
}
