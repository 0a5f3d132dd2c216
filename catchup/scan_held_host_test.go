package catchup

import (
	"context"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestHeldSlotWarningNamesTheHolder: the warning of a slot found held by a
// run still running says whose run it is, from the run's record: another
// host's replay names that host; this host's (another scan's, its lock
// held) says so, with its pid, never "another host's replay or fire",
// which it said of both (SQLite and PostgreSQL).
func TestHeldSlotWarningNamesTheHolder(t *testing.T) {
	t.Parallel()
	held := mustTime(t, "2026-03-01T11:00:00Z")
	tests := map[string]struct {
		host     string // the holder's; "" for this host's
		want     string
		wantNot  string
		holdLock bool // this host's run is alive while its task's lock is held
	}{
		"another host's replay": {host: "b", want: "is held by run 2 (a replay on host b), still running: its later missed slots (2) wait",
			wantNot: "a long job"},
		"this host's other scan": {holdLock: true, want: "is held by run 2 (a replay on this host, pid 4343), still running: its later missed slots (2) wait",
			wantNot: "another host's"},
	}
	for backend, open := range sharedLedgers {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				st, db := open(t)
				m, _, now := hourlyThreeMissed(t, st, db)
				holder := store.Run{Task: "job", Slot: held, Trigger: store.TriggerReplay, Status: store.StatusRunning,
					Attempt: 1, StartedAt: now, Host: tc.host, PID: 4343, BootID: m.BootID}
				if tc.host == "" {
					holder.Host = m.Host
				}
				if tc.holdLock {
					lock, err := openTaskLock(m.LockDir, "job", m.UID)
					if err != nil {
						t.Fatal(err)
					}
					defer lock.close()
					if ok, err := lock.tryLock(); err != nil || !ok {
						t.Fatalf("holding the task's lock: %v, %v", ok, err)
					}
				}
				b, err := st.Claim(context.Background(), store.ClaimRequest{Run: holder})
				if err != nil || !b.Claimed || b.Run.ID != 2 {
					t.Fatalf("the holder's claim of 11:00: %+v, %v", b, err)
				}
				rep, err := Scan(context.Background(), &lostClaim{Store: st}, m, scanRequest())
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				warn := strings.Join(rep.Tasks[0].Warnings, "\n")
				if !strings.Contains(warn, tc.want) || strings.Contains(warn, tc.wantNot) {
					t.Errorf("scan warned %q, want %q (and not %q)", warn, tc.want, tc.wantNot)
				}
			})
		}
	}
}
