package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
)

func TestCalendarGridColors(t *testing.T) {
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := from.Add(30 * time.Hour)
	g := calendarGrid{days: catchup.NewCalendarDays(now, 2, time.UTC), now: now, zone: "UTC"}
	rows := []catchup.CalendarRow{{Task: "a-very-long-task-name-indeed", Zone: time.UTC, Slots: []catchup.CalendarSlot{
		{Slot: from.Add(2 * time.Hour), State: catchup.CellRan},
		{Slot: from.Add(26 * time.Hour), State: catchup.CellMissed},
	}}}
	tests := map[string]struct {
		color bool
		want  string
	}{
		"plain":  {false, "a-very-long-tas~ r"},
		"colour": {true, "a-very-long-tas~ \x1b[32mr\x1b[0m"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := g.write(&b, rows, tc.color); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.want) {
				t.Errorf("grid lacks %q:\n%s", tc.want, b.String())
			}
			if tc.color != strings.Contains(b.String(), "\x1b[1;31mM\x1b[0m") {
				t.Errorf("missed cell colour: %q", b.String())
			}
			for _, line := range strings.Split(b.String(), "\n") {
				if n := len(strings.Join(strings.FieldsFunc(line, func(r rune) bool { return r == '\x1b' }), "")); !tc.color && n > calendarWidth {
					t.Errorf("line wider than %d: %q", calendarWidth, line)
				}
			}
		})
	}
}
