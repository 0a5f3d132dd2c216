package catchup

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// beatingLedger is a shared ledger whose running records read beat as
// their last heartbeat (SQLite keeps none).
type beatingLedger struct {
	sharedLedger
	beat time.Time
}

func (l beatingLedger) Running(ctx context.Context) ([]store.Run, error) {
	runs, err := l.Store.Running(ctx)
	for i := range runs {
		runs[i].Heartbeat = l.beat
	}
	return runs, err
}

// TestDeadRunEndsAtItsBound: a run found dead is recorded ended at the
// earliest time it certainly ended by, not when a reader found it: a run
// of another boot of this host by the start of this boot (when known, and
// after the run's start), another host's by its last heartbeat (else its
// start) and the lease, and one whose catchup and command vanished from
// this boot, of which nothing better is known, by now.
func TestDeadRunEndsAtItsBound(t *testing.T) {
	t.Parallel()
	start := mustTime(t, "2026-03-02T02:00:05Z")
	now := mustTime(t, "2026-03-02T05:00:00Z")
	tests := map[string]struct {
		shared   bool
		host     string    // the run's
		boot     string    // the run's
		beat     time.Time // its last heartbeat (shared)
		bootTime time.Time // this boot's start (zero: unknown)
		want     time.Time
	}{
		"another boot: this boot's start": {host: "testhost", boot: "boot-0",
			bootTime: mustTime(t, "2026-03-02T02:15:00Z"), want: mustTime(t, "2026-03-02T02:15:00Z")},
		"another boot, boot time unknown": {host: "testhost", boot: "boot-0", want: now},
		"another boot, boot time before its start (a copied ledger, a clock step)": {host: "testhost", boot: "boot-0",
			bootTime: mustTime(t, "2026-03-02T01:00:00Z"), want: now},
		"another boot, boot time later than now (the clock went back)": {host: "testhost", boot: "boot-0",
			bootTime: mustTime(t, "2026-03-02T06:00:00Z"), want: now},
		"another boot on a shared ledger: this boot's start": {shared: true, host: "testhost", boot: "boot-0",
			beat: mustTime(t, "2026-03-02T02:05:00Z"), bootTime: mustTime(t, "2026-03-02T02:15:00Z"), want: mustTime(t, "2026-03-02T02:15:00Z")},
		"this boot, its catchup and command gone: now": {host: "testhost", boot: "boot-1",
			bootTime: mustTime(t, "2026-03-01T00:00:00Z"), want: now},
		"another host's lease ran out: its last heartbeat and the lease": {shared: true, host: "otherhost", boot: "boot-9",
			beat: mustTime(t, "2026-03-02T02:30:00Z"), want: mustTime(t, "2026-03-02T02:31:00Z")},
		"another host's lease ran out, no heartbeat: its start and the lease": {shared: true, host: "otherhost", boot: "boot-9",
			want: start.Add(time.Minute)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, db := testLedger(t)
			var s store.Store = st
			if tc.shared {
				s = beatingLedger{sharedLedger{st}, tc.beat}
			}
			m := testMachine(db, now)
			m.BootTime, m.Lease = tc.bootTime, time.Minute
			id, err := st.AddRun(ctx, store.Run{Task: "job", Slot: mustTime(t, "2026-03-02T02:00:00Z"), Trigger: store.TriggerSchedule,
				Status: store.StatusRunning, Attempt: 1, StartedAt: start, Host: tc.host, BootID: tc.boot, PID: 1 << 22})
			if err != nil {
				t.Fatal(err)
			}
			stale, err := findStale(ctx, s, m, true)
			if err != nil {
				t.Fatal(err)
			}
			r, err := st.Run(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !stale[id] || r.Status != store.StatusInterrupted {
				t.Fatalf("run %s (stale %v), want interrupted", r.Status, stale[id])
			}
			if !r.EndedAt.Equal(tc.want) {
				t.Errorf("ended %v, want %v (%s)", r.EndedAt.UTC(), tc.want, r.Error)
			}
		})
	}
}

// TestClaimEndsADeadRunOfAnotherBootAtThisBoot: a fire whose claim finds
// its slot held by a running record of another boot of this host marks it
// interrupted ended at this boot's start, as scan does.
func TestClaimEndsADeadRunOfAnotherBootAtThisBoot(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	boot := mustTime(t, "2026-03-01T10:00:20Z")
	f.m.BootTime = boot
	ctx := context.Background()
	slot := mustTime(t, "2026-03-01T10:00:00Z")
	id, err := f.st.AddRun(ctx, store.Run{Task: "job", Slot: slot, Trigger: store.TriggerSchedule, Status: store.StatusRunning,
		Attempt: 1, StartedAt: slot.Add(5 * time.Second), Host: "testhost", BootID: "boot-0", PID: 1 << 22})
	if err != nil {
		t.Fatal(err)
	}
	if res := f.run(t, f.request(t)); res.ExitCode != 0 {
		t.Fatalf("fire: exit %d, want 0", res.ExitCode)
	}
	r, err := f.st.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.StatusInterrupted || !r.EndedAt.Equal(boot) {
		t.Errorf("dead run %s, ended %v; want interrupted, ended %v", r.Status, r.EndedAt.UTC(), boot)
	}
}
