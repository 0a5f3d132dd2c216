package catchup

import (
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRegisterNotedReschedules: a note whose line changed its task's
// schedule, zone or command, fired after the task's registration, changes
// it as of the noted fire (the new schedule counting from the fire's slot;
// a command alone keeps the watermark), notes in order; a registration
// newer than the note, or a crontab line's, is left as it is. The readers
// (pendingNotes.registered) read the task as the scan leaves it.
func TestRegisterNotedReschedules(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { return mustTime(t, s) }
	reg := func(expr, tz string, argv ...string) *noteTask {
		return &noteTask{Schedule: expr, TZ: tz, Replay: "all", Argv: argv, Source: "run", OnBusy: "replay"}
	}
	note := func(fired string, n *noteTask) spoolEntry {
		n.RegisteredAt = at(fired).Truncate(time.Hour)
		return spoolEntry{Task: "a", Slot: n.RegisteredAt, StartedAt: at(fired), Ran: true, Register: n}
	}
	tests := []struct {
		name     string
		source   string
		updated  string // when the ledger's registration was made
		notes    []spoolEntry
		expr, tz string
		argv     []string
		settled  string
	}{
		{name: "zone only", updated: "2026-05-01T10:00:02Z",
			notes: []spoolEntry{note("2026-05-01T11:00:02Z", reg("0 * * * *", "Europe/Paris", "old"))},
			expr:  "0 * * * *", tz: "Europe/Paris", argv: []string{"old"}, settled: "2026-05-01T10:59:59Z"},
		{name: "command only", updated: "2026-05-01T10:00:02Z",
			notes: []spoolEntry{note("2026-05-01T11:00:02Z", reg("0 * * * *", "UTC", "new"))},
			expr:  "0 * * * *", tz: "UTC", argv: []string{"new"}, settled: "2026-05-01T09:59:59Z"},
		{name: "two notes in order", updated: "2026-05-01T10:00:02Z",
			notes: []spoolEntry{note("2026-05-01T11:00:02Z", reg("30 * * * *", "UTC", "mid")),
				note("2026-05-01T12:00:02Z", reg("15 * * * *", "UTC", "new"))},
			expr: "15 * * * *", tz: "UTC", argv: []string{"new"}, settled: "2026-05-01T11:59:59Z"},
		{name: "registered since the note", updated: "2026-05-01T11:30:02Z",
			notes: []spoolEntry{note("2026-05-01T11:00:02Z", reg("30 * * * *", "UTC", "new"))},
			expr:  "0 * * * *", tz: "UTC", argv: []string{"old"}, settled: "2026-05-01T09:59:59Z"},
		{name: "crontab line", source: "crontab:/etc/crontab:1", updated: "2026-05-01T10:00:02Z",
			notes: []spoolEntry{note("2026-05-01T11:00:02Z", reg("30 * * * *", "UTC", "new"))},
			expr:  "0 * * * *", tz: "UTC", argv: []string{"old"}, settled: "2026-05-01T09:59:59Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, db := testLedger(t)
			m := testMachine(db, at("2026-05-01T12:10:00Z"))
			old := store.Task{Name: "a", Schedule: "0 * * * *", TZ: "UTC", Replay: "all", Argv: []string{"old"},
				Source: "run", OnBusy: "replay", RegisteredAt: at("2026-05-01T10:00:00Z"), UpdatedAt: at(tt.updated),
				SettledThrough: at("2026-05-01T09:59:59Z")}
			if tt.source != "" {
				old.Source = tt.source
			}
			if err := st.UpsertTask(t.Context(), old); err != nil {
				t.Fatal(err)
			}
			before, err := st.Task(t.Context(), "a")
			if err != nil {
				t.Fatal(err)
			}
			read, _ := (&pendingNotes{fires: tt.notes}).registered("a", before, true)
			if err := registerNoted(t.Context(), st, m, tt.notes); err != nil {
				t.Fatal(err)
			}
			got, err := st.Task(t.Context(), "a")
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range []store.Task{got, read} {
				if task.Schedule != tt.expr || task.TZ != tt.tz || !slices.Equal(task.Argv, tt.argv) ||
					!task.SettledThrough.Equal(at(tt.settled)) {
					t.Errorf("task %q in %s, %q, settled through %s; want %q in %s, %q, %s", task.Schedule, task.TZ,
						task.Argv, rfc(task.SettledThrough), tt.expr, tt.tz, tt.argv, tt.settled)
				}
			}
		})
	}
}
