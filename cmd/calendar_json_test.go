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
	now := from.Add(30 * time.Hour)
	g := calendarGrid{days: catchup.NewCalendarDays(now, 2, time.UTC), now: now, zone: "Europe/Paris <&>"}
	apia, err := time.LoadLocation("Pacific/Apia")
	if err != nil {
		t.Fatal(err)
	}
	skipped := time.Date(2012, 1, 1, 6, 0, 0, 0, time.UTC) // Apia skipped 2011-12-30
	gs := calendarGrid{days: catchup.NewCalendarDays(skipped, 3, apia), now: skipped, zone: "Pacific/Apia"}
	ran := catchup.CalendarRow{Task: "a<b>&c", Zone: paris, Slots: []catchup.CalendarSlot{
		{Slot: from.Add(2 * time.Hour), State: catchup.CellRan, RunID: 7},
		{Slot: from.Add(26 * time.Hour), State: catchup.CellMissed}}}
	bare := catchup.CalendarRow{Task: "bare", Zone: time.UTC, Warning: "no schedule: its runs have no slots"}
	tests := map[string]struct {
		g    calendarGrid
		rows []catchup.CalendarRow
	}{
		"no task":                   {g, nil},
		"one task":                  {g, []catchup.CalendarRow{ran}},
		"three tasks":               {g, []catchup.CalendarRow{ran, bare, ran}},
		"a skipped date, no task":   {gs, nil},
		"a skipped date, two tasks": {gs, []catchup.CalendarRow{ran, bare}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g, rows := tc.g, tc.rows
			doc := calendarJSON{From: g.days.Start(0).UTC().Format(time.RFC3339), To: g.now.UTC().Format(time.RFC3339), Zone: g.zone,
				SkippedDates: g.skippedDates(), Tasks: []calendarTaskJSON{}}
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
	now := from.Add(6*24*time.Hour + 12*time.Hour) // the 7th: the days are the 1st to the 7th
	g := calendarGrid{days: catchup.NewCalendarDays(now, 7, time.UTC), now: now, zone: "UTC"}
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
