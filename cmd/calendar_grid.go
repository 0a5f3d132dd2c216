package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
)

// calendarWidth is the width the grid fits in.
const calendarWidth = 80

// cellLetter and cellColor draw each state: switches, not maps, which
// would be built at every process's start (docs/performance.md).
func cellLetter(state string) byte {
	switch state {
	case catchup.CellNone:
		return ' '
	case catchup.CellPending:
		return '-'
	case catchup.CellRan:
		return 'r'
	case catchup.CellReplayed:
		return 'y'
	case catchup.CellSkipped:
		return 's'
	case catchup.CellPaused:
		return 'z'
	case catchup.CellLate:
		return 'l'
	case catchup.CellRunning:
		return 'a'
	case catchup.CellExpired:
		return 'x'
	case catchup.CellMissed:
		return 'M'
	case catchup.CellFailed:
		return 'F'
	}
	return 0
}

func cellColor(state string) string {
	switch state {
	case catchup.CellPending:
		return "2"
	case catchup.CellRan:
		return "32"
	case catchup.CellReplayed:
		return "36"
	case catchup.CellSkipped:
		return "90"
	case catchup.CellPaused:
		return "34"
	case catchup.CellLate:
		return "33"
	case catchup.CellRunning:
		return "1;32"
	case catchup.CellExpired:
		return "35"
	case catchup.CellMissed:
		return "1;31"
	case catchup.CellFailed:
		return "1;37;41"
	}
	return ""
}

const calendarLegend = "r ran  y replayed  l late  M missed  F failed  x expired  z paused\n" +
	"s skipped  a running  - not due  . no slot  * a cell per day (its worst slot)\n"

// calendarGrid lays out the days of a calendar: a column each. A date its
// zone skipped is no day (catchup.CalendarDays): it has no column, and a
// note under the legend names it.
type calendarGrid struct {
	days catchup.CalendarDays
	now  time.Time
	zone string
}

// n is how many days (columns) the grid has.
func (g calendarGrid) n() int { return len(g.days.Dates) }

// gridRow is one task's row reduced to what the grid draws: per day, its
// slots' states while each may still get a cell, else their count and the
// worst. Its size does not grow with the task's slots.
type gridRow struct {
	task, warning string
	days          []gridDay
	causes        causeTally // why its missed cells were missed
}

// gridDay is a day of a gridRow.
type gridDay struct {
	n      int     // its slots
	states []uint8 // each slot's state (index in catchup.CellStates), while n <= maxCells
	worst  uint8   // the worst of them
	// old: the day shows a record of an old schedule's or zone's slot
	// (a state other than none): the new schedule's none slots on it,
	// before its change, were no slots of the task then, and get no
	// cell (a blank beside the old slot's r read as a slot not run).
	old bool
}

// cells are the states the day draws, one cell each: its none ones left
// out when it shows an old schedule's record (old).
func (d gridDay) cells() []uint8 {
	if !d.old {
		return d.states
	}
	var out []uint8
	for _, s := range d.states {
		if s != 0 { // catchup.CellNone
			out = append(out, s)
		}
	}
	return out
}

// maxCells is the most cells a day can get: with the shortest column of
// names.
func (g calendarGrid) maxCells() int { return (calendarWidth-4-1+1)/g.n() - 1 }

// reduce is r as the grid draws it.
func (g calendarGrid) reduce(r catchup.CalendarRow) gridRow {
	row := gridRow{task: r.Task, warning: r.Warning, days: make([]gridDay, g.n())}
	maxCells := g.maxCells()
	for _, s := range r.Slots {
		d := g.days.Of(s.Slot)
		if d < 0 {
			continue
		}
		day := &row.days[d]
		if s.State == catchup.CellMissed {
			row.causes.add(s.Cause)
		}
		state := uint8(max(0, slices.Index(catchup.CellStates, s.State)))
		day.n++
		day.worst = max(day.worst, state)
		day.old = day.old || (s.OldSchedule && s.State != catchup.CellNone)
		switch {
		case day.n <= maxCells:
			day.states = append(day.states, state)
		default:
			day.states = nil
		}
	}
	return row
}

// write draws rows (catchup.CalendarRow or, reduced, gridRow) as the grid.
func (g calendarGrid) write(w io.Writer, rows []catchup.CalendarRow, color bool) error {
	reduced := make([]gridRow, 0, len(rows))
	for _, r := range rows {
		reduced = append(reduced, g.reduce(r))
	}
	return g.writeRows(w, reduced, color)
}

func (g calendarGrid) writeRows(w io.Writer, rows []gridRow, color bool) error {
	nameW := 4
	for _, r := range rows {
		nameW = max(nameW, min(len(r.task), 16))
	}
	dates := g.days.Dates
	cellW := (calendarWidth-nameW-1+1)/len(dates) - 1
	var b strings.Builder
	last := dates[len(dates)-1]
	if len(dates) > 1 {
		fmt.Fprintf(&b, "%s to ", dates[0].Format("Mon 2006-01-02"))
	}
	fmt.Fprintf(&b, "%s (%s)\n", last.Format("Mon 2006-01-02"), g.zone)
	for i, label := range dayLabels(cellW) {
		head := "TASK"
		if i > 0 {
			head = ""
		}
		b.WriteString(pad(head, nameW) + " ")
		for d, date := range dates {
			b.WriteString(pad(label(date), cellW))
			if d < len(dates)-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString("\n")
	}
	var warnings []string
	for _, r := range rows {
		if r.warning != "" {
			warnings = append(warnings, fmt.Sprintf("%s: %s", printable(r.task), printable(r.warning)))
		}
		perDay := slices.ContainsFunc(r.days, func(d gridDay) bool { return d.n > cellW })
		mark := " "
		if perDay {
			mark = "*"
		}
		if r.warning != "" { // no slot is known (no schedule, the clock behind the ledger): an empty row
			b.WriteString(truncate(printable(r.task), nameW) + "\n")
			continue
		}
		b.WriteString(pad(truncate(printable(r.task), nameW), nameW) + mark)
		for d, day := range r.days {
			var cells []string
			switch {
			case day.n == 0:
				cells = []string{"."}
			case perDay:
				cells = []string{cell(catchup.CellStates[day.worst], color)}
			default:
				for _, s := range day.cells() {
					cells = append(cells, cell(catchup.CellStates[s], color))
				}
			}
			b.WriteString(strings.Join(cells, ""))
			if d < len(dates)-1 {
				b.WriteString(strings.Repeat(" ", cellW-len(cells)+1))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(calendarLegend)
	for _, r := range rows {
		if len(r.causes) > 0 { // why its M were missed, as ls --missed's CAUSE says
			fmt.Fprintf(&b, "missed: %s: %s\n", printable(r.task), r.causes)
		}
	}
	for _, d := range g.days.Skipped {
		fmt.Fprintf(&b, "note: %s has no column: that date never came in %s (its clocks skipped it)\n",
			d.Format("Mon 2006-01-02"), g.zone)
	}
	for _, wmsg := range warnings {
		b.WriteString("warning: " + wmsg + "\n")
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		line, nl := strings.TrimRight(line, " \n"), strings.HasSuffix(line, "\n")
		if !strings.HasPrefix(line, "missed: ") && !strings.HasPrefix(line, "note: ") && !strings.HasPrefix(line, "warning: ") {
			out.WriteString(line) // the grid and its legend: already within calendarWidth
		} else {
			writeWrapped(&out, line, calendarWidth)
		}
		if nl {
			out.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func cell(state string, color bool) string {
	l := string(cellLetter(state))
	if c := cellColor(state); color && c != "" {
		return "\x1b[" + c + "m" + l + "\x1b[0m"
	}
	return l
}

// dayLabels are the header lines that name each day in w columns, its
// weekday and its date: one line ("Mo 23") when they fit together, else a
// line of weekdays ("Mo", or "M") over a line of dates ("23", or "3").
func dayLabels(w int) []func(time.Time) string {
	weekday := func(d time.Time) string { return d.Format("Mon")[:min(2, w)] }
	date := func(d time.Time) string {
		if w >= 2 {
			return d.Format("02")
		}
		return d.Format("02")[1:]
	}
	if w >= 5 {
		return []func(time.Time) string{func(d time.Time) string { return weekday(d) + " " + date(d) }}
	}
	return []func(time.Time) string{weekday, date}
}

func pad(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-len(s))
}

func truncate(s string, w int) string {
	if len(s) <= w {
		return s
	}
	return s[:w-1] + "~"
}
