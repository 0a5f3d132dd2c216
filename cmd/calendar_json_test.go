package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
)

// TestCalendarJSONStreamed: calendar -o json, written a task at a time,
// is byte for byte the document renderJSON writes whole.
func TestCalendarJSONStreamed(t *testing.T) {
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	g := calendarGrid{first: from, from: from, now: from.Add(30 * time.Hour), days: 2, loc: time.UTC, zone: "Europe/Paris <&>"}
	ran := catchup.CalendarRow{Task: "a<b>&c", Zone: paris, Slots: []catchup.CalendarSlot{
		{Slot: from.Add(2 * time.Hour), State: catchup.CellRan, RunID: 7},
		{Slot: from.Add(26 * time.Hour), State: catchup.CellMissed}}}
	bare := catchup.CalendarRow{Task: "bare", Zone: time.UTC, Warning: "no schedule: its runs have no slots"}
	tests := map[string][]catchup.CalendarRow{
		"no task":     nil,
		"one task":    {ran},
		"three tasks": {ran, bare, ran},
	}
	for name, rows := range tests {
		t.Run(name, func(t *testing.T) {
			doc := calendarJSON{From: g.from.UTC().Format(time.RFC3339), To: g.now.UTC().Format(time.RFC3339), Zone: g.zone, Tasks: []calendarTaskJSON{}}
			for _, r := range rows {
				task := calendarTaskJSON{Task: r.Task, TZ: r.Zone.String(), Warning: r.Warning, Slots: []calendarSlotJSON{}}
				for _, s := range r.Slots {
					task.Slots = append(task.Slots, calendarSlotJSON{Slot: s.Slot.In(r.Zone).Format(time.RFC3339), State: s.State, RunID: s.RunID})
				}
				doc.Tasks = append(doc.Tasks, task)
			}
			var want, got strings.Builder
			if err := renderJSON(&want, doc); err != nil {
				t.Fatal(err)
			}
			j := g.newCalendarJSONWriter(&got)
			for _, r := range rows {
				if err := j.add(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := j.close(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("streamed:\n%s\nwant:\n%s", got.String(), want.String())
			}
		})
	}
}

// TestCalendarGridReducedDay: a day whose slots fit a cell each with the
// shortest names but not with the longest still shows its worst slot once
// a long name narrows the cells (rows are reduced before all names are known).
func TestCalendarGridReducedDay(t *testing.T) {
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	g := calendarGrid{first: from, from: from, now: from.Add(7 * 24 * time.Hour), days: 7, loc: time.UTC, zone: "UTC"}
	var slots []catchup.CalendarSlot
	for i := range g.maxCells() { // 9: one more than a cell each with a 16-letter name
		state := catchup.CellRan
		if i == 4 {
			state = catchup.CellFailed
		}
		slots = append(slots, catchup.CalendarSlot{Slot: from.Add(time.Duration(i) * time.Hour), State: state})
	}
	tests := map[string]struct{ name, want string }{
		"short name": {"job", "job  rrrrFrrrr ."},
		"long name":  {"a-sixteen-letter", "a-sixteen-letter*F        ."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := g.write(&b, []catchup.CalendarRow{{Task: tc.name, Zone: time.UTC, Slots: slots}}, false); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("grid lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}
