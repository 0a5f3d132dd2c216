package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
)

// TestCalendarTextFitsEightyColumns: the lines under the grid (missed:
// causes, notes, warnings) fit a terminal of calendarWidth columns, broken
// at blanks and continued indented, whatever the task's name and however
// many causes its missed cells have; nothing of them is lost. They were
// one line each, 96 columns and more for a long name or many causes.
func TestCalendarTextFitsEightyColumns(t *testing.T) {
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	now := from.Add(30 * time.Hour)
	long := strings.Repeat("settlement-", 11) + "eu" // 123 characters, a valid name
	causes := []string{catchup.CauseNotFired, catchup.CauseHostDown, catchup.CauseLockBusy,
		catchup.CauseUnreachable, catchup.CauseLedgerLocked, catchup.CauseLockFile}
	row := func(name string) catchup.CalendarRow {
		r := catchup.CalendarRow{Task: name, Zone: time.UTC}
		for i, c := range causes {
			r.Slots = append(r.Slots, catchup.CalendarSlot{Slot: from.Add(time.Duration(i) * time.Hour), State: catchup.CellMissed, Cause: c})
		}
		return r
	}
	tests := map[string]struct {
		rows []catchup.CalendarRow
		want []string // the text of the lines under the grid, blanks collapsed
	}{
		"many causes": {[]catchup.CalendarRow{row("nightly-settlement-of-the-eu-ledger")},
			[]string{"missed: nightly-settlement-of-the-eu-ledger: not-fired 1, host-down 1, lock-busy 1, ledger-unreachable 1, ledger-locked 1, lock-file 1"}},
		"a name longer than the line": {[]catchup.CalendarRow{row(long)},
			[]string{"missed: " + long + ": not-fired 1, host-down 1, lock-busy 1, ledger-unreachable 1, ledger-locked 1, lock-file 1"}},
		"a warning": {[]catchup.CalendarRow{{Task: "nightly-settlement-of-the-eu-ledger", Zone: time.UTC,
			Warning: "the ledger holds a time of this task later than now (2026-03-09T00:00:00Z): the clock is behind it; catchup reset-clock"}},
			[]string{"warning: nightly-settlement-of-the-eu-ledger: the ledger holds a time of this task later than now (2026-03-09T00:00:00Z): the clock is behind it; catchup reset-clock"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g := calendarGrid{days: catchup.NewCalendarDays(now, 2, time.UTC), now: now, zone: "UTC"}
			var b strings.Builder
			if err := g.write(&b, tc.rows, false); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if len(line) > calendarWidth && strings.Contains(strings.TrimSpace(line), " ") { // a word longer than the line stands alone
					t.Errorf("line of %d columns, wider than %d: %q", len(line), calendarWidth, line)
				}
			}
			_, under, _ := strings.Cut(out, "* a cell per day (its worst slot)\n")
			if got := strings.Join(strings.Fields(under), " "); got != strings.Join(tc.want, " ") {
				t.Errorf("the lines under the grid say\n%q\nwant\n%q\nin:\n%s", got, strings.Join(tc.want, " "), out)
			}
			for _, line := range strings.Split(strings.TrimSuffix(under, "\n"), "\n") {
				if !strings.HasPrefix(line, "missed:") && !strings.HasPrefix(line, "warning:") && !strings.HasPrefix(line, "  ") {
					t.Errorf("a continued line is not indented: %q", line)
				}
			}
		})
	}
}
