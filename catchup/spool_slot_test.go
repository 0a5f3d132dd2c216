package catchup

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestNoteSlot: a fire that could not read the ledger stands for the slot
// it would have taken had it read the registration: however late, once
// the task was known under that schedule before the slot; as a first fire
// (within tolerance) otherwise. The same rule whatever the zone.
func TestNoteSlot(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	registered := func(expr, tz, reg, since string) *store.Task {
		task := &store.Task{Name: "t", Schedule: expr, TZ: tz, RegisteredAt: at(reg)}
		if since != "" {
			task.ScheduleSince = at(since)
		}
		return task
	}
	for _, tc := range []struct {
		name     string
		expr, tz string
		task     *store.Task // the registration as scan reads it (nil: none)
		fire     string
		byHand   bool
		want     string // "" for no slot
	}{
		{name: "late fire of a known line stands for its slot", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-12-01T08:30:00Z", ""), fire: "2026-12-01T10:10:05Z", want: "2026-12-01T10:00:00Z"},
		{name: "fire just before the next slot still stands for the last", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-12-01T08:30:00Z", ""), fire: "2026-12-01T10:59:30Z", want: "2026-12-01T10:00:00Z"},
		{name: "first fire within tolerance", expr: "0 * * * *", tz: "UTC",
			fire: "2026-12-01T10:04:00Z", want: "2026-12-01T10:00:00Z"},
		{name: "first fire past tolerance stands for none", expr: "0 * * * *", tz: "UTC",
			fire: "2026-12-01T10:10:05Z"},
		{name: "registered after the slot: a first fire", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-12-01T10:05:00Z", ""), fire: "2026-12-01T10:10:05Z"},
		{name: "slot before the schedule's change: a first fire", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-11-01T00:00:00Z", "2026-12-01T10:05:00Z"), fire: "2026-12-01T10:10:05Z"},
		{name: "slot after the schedule's change", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-11-01T00:00:00Z", "2026-12-01T09:05:00Z"), fire: "2026-12-01T10:10:05Z", want: "2026-12-01T10:00:00Z"},
		{name: "registered under another zone: a first fire", expr: "30 2 * * *", tz: "Europe/Berlin",
			task: registered("30 2 * * *", "UTC", "2026-11-01T00:00:00Z", ""), fire: "2026-12-01T01:45:00Z"},
		{name: "late fire in a zone of its own", expr: "30 2 * * *", tz: "Europe/Berlin",
			task: registered("30 2 * * *", "Europe/Berlin", "2026-11-01T00:00:00Z", ""), fire: "2026-12-01T01:45:00Z", want: "2026-12-01T01:30:00Z"},
		{name: "retired task: a first fire", expr: "0 * * * *", tz: "UTC",
			task: func() *store.Task {
				r := registered("0 * * * *", "UTC", "2026-11-01T00:00:00Z", "")
				r.RetiredAt = at("2026-11-20T00:00:00Z")
				return r
			}(), fire: "2026-12-01T10:10:05Z"},
		{name: "fire early for a known line's slot stands for it", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-12-01T08:30:00Z", ""), fire: "2026-12-01T09:59:57Z", want: "2026-12-01T10:00:00Z"},
		{name: "first fire early for its slot stands for it", expr: "0 * * * *", tz: "UTC",
			fire: "2026-12-01T09:59:57Z", want: "2026-12-01T10:00:00Z"},
		{name: "fire early in a minute the expression matches is its own minute's", expr: "* * * * *", tz: "UTC",
			task: registered("* * * * *", "UTC", "2026-12-01T08:30:00Z", ""), fire: "2026-12-01T09:59:57Z", want: "2026-12-01T09:59:00Z"},
		{name: "fire 6 s before a slot is a late fire of the one before", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-12-01T08:30:00Z", ""), fire: "2026-12-01T09:59:54Z", want: "2026-12-01T09:00:00Z"},
		{name: "fire early for a spring-forward slot in its zone", expr: "0 3 * * *", tz: "Europe/Berlin",
			task: registered("0 3 * * *", "Europe/Berlin", "2026-03-01T00:00:00Z", ""), fire: "2026-03-29T00:59:57Z", want: "2026-03-29T01:00:00Z"},
		{name: "a run by hand stands for none", expr: "0 * * * *", tz: "UTC",
			task: registered("0 * * * *", "UTC", "2026-11-01T00:00:00Z", ""), fire: "2026-12-01T10:00:30Z", byHand: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchedule(t, tc.expr, tc.tz)
			e := spoolEntry{Task: "t", StartedAt: at(tc.fire), EndedAt: at(tc.fire), Trigger: store.TriggerManual, ByHand: tc.byHand, Ran: true}
			r := noteRun(e, func(e spoolEntry) time.Time { return noteSlot(s, knownFrom(tc.task, s), e, DefaultTolerance) })
			got := ""
			if !r.Slot.IsZero() {
				got = r.Slot.UTC().Format(time.RFC3339)
			}
			if got != tc.want {
				t.Errorf("slot %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoteRunReason: a fire note is recorded with the reason of its fault,
// which names its slot's cause: lock-file for a fire that could not take
// this host's lock for its task (the ledger was fine), ledger-unreachable
// otherwise, and for a note an older catchup wrote (no lock_fault).
func TestNoteRunReason(t *testing.T) {
	t.Parallel()
	const head = `{"task":"t","slot":"2026-12-01T10:00:00Z","trigger":"schedule","host":"h","started_at":"2026-12-01T10:00:01Z","ended_at":"2026-12-01T10:00:01Z"`
	tests := map[string]struct {
		note         string
		reason, says string // the record's reason, and its error's start
	}{
		"not run, an older catchup's": {note: head + `,"ran":false,"error":"x"}`,
			reason: store.ReasonUnreachable, says: "not run: the ledger could not be reached: x"},
		"not run, its lock file": {note: head + `,"ran":false,"error":"x","lock_fault":true}`,
			reason: store.ReasonLockFile, says: "not run: this host's lock for the task could not be taken: x"},
		"ran, its lock file": {note: head + `,"ran":true,"status":"succeeded","exit_code":0,"error":"x","lock_fault":true}`,
			reason: store.ReasonLockFile, says: "recorded late: this host's lock for the task could not be taken when it ran: x"},
		"lock held": {note: head + `,"ran":false,"locked":true,"error":"x"}`, says: reasonLocked},
		"by hand, its lock file": {note: head + `,"ran":false,"error":"x","lock_fault":true,"by_hand":true}`,
			reason: store.ReasonByHand, says: "not run: this host's lock"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var e spoolEntry
			if err := json.Unmarshal([]byte(tc.note), &e); err != nil {
				t.Fatal(err)
			}
			r := noteRun(e, func(spoolEntry) time.Time { return time.Time{} })
			if r.Reason != tc.reason || !strings.HasPrefix(r.Error, tc.says) {
				t.Errorf("recorded with reason %q, error %q; want %q, %q", r.Reason, r.Error, tc.reason, tc.says)
			}
		})
	}
}
