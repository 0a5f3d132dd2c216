package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// renderTable writes a borderless, left-aligned table whose values are
// printed as given (no upper-casing): stable for scripts, easy to read.
// Control characters in a value are escaped (printable): table values come
// from the ledger.
func renderTable(w io.Writer, header []string, rows [][]string) error {
	safe := make([][]string, len(rows))
	for i, row := range rows {
		safe[i] = make([]string, len(row))
		for j, v := range row {
			safe[i][j] = printable(v)
		}
	}
	rows = safe
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(line, " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// renderJSON writes v as indented JSON, < > & as themselves: it is read by
// people and scripts, not embedded in HTML (a POSIX zone "<+0545>-5:45"
// stays readable).
func renderJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// jsonTime is an RFC 3339 UTC time, or null when zero.
func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// runZone is the zone a run of task is shown in: its task's
// (catchup.RunZones), UTC when zones has none, as ls shows a task whose
// zone is unknown. History, show and ls --running use it alike.
func runZone(zones map[string]*time.Location, task string) *time.Location {
	if loc := zones[task]; loc != nil {
		return loc
	}
	return time.UTC
}

// tableTimeLayout is the one time format of every table: compact, so that
// tables fit 80 columns; the zone is the table's (docs/contract.md).
const tableTimeLayout = "2006-01-02 15:04"

// tableTime renders a time for people, in loc (a run's: its task's zone,
// catchup.RunZones); "-" when zero. A time whose shown minute loc reads
// twice (the hour a change back from daylight saving time repeats) carries
// its offset, `2026-10-25 02:30 +02:00` then `+01:00`: two times an hour
// apart must not read alike. The offset, not the abbreviation: a zone may
// keep its abbreviation across the change (Moscow's MSK in 2014).
func tableTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	t = t.In(loc)
	if !repeatedWallMinute(t) {
		return t.Format(tableTimeLayout)
	}
	if _, off := t.Zone(); off%60 != 0 {
		return t.Format(tableTimeLayout + " -07:00:00") // local mean time
	}
	return t.Format(tableTimeLayout + " -07:00")
}

// repeatedWallMinute says whether t's wall-clock minute, in t's location,
// is also read at another instant: the zone's offset falls at the start or
// the end of t's zone period, and the minute overlaps the wall times read
// on both sides of that change.
func repeatedWallMinute(t time.Time) bool {
	_, off := t.Zone()
	wall := t.Unix() + int64(off)
	minute := wall - ((wall%60)+60)%60
	start, end := t.ZoneBounds()
	if !start.IsZero() {
		// Fell back at start: the walls [start+off, start+before) repeat.
		if _, before := start.Add(-time.Second).Zone(); before > off && minute < start.Unix()+int64(before) {
			return true
		}
	}
	if !end.IsZero() {
		// Falls back at end: the walls [end+after, end+off) repeat.
		if _, after := end.Zone(); after < off && minute+60 > end.Unix()+int64(after) {
			return true
		}
	}
	return false
}

// pickColumns keeps the columns whose keep flag is true, in header and rows:
// a table's default columns fit 80 columns, -o wide keeps them all.
func pickColumns(header []string, rows [][]string, keep []bool) ([]string, [][]string) {
	pick := func(in []string) []string {
		var out []string
		for i, v := range in {
			if keep[i] {
				out = append(out, v)
			}
		}
		return out
	}
	picked := make([][]string, len(rows))
	for i, r := range rows {
		picked[i] = pick(r)
	}
	return pick(header), picked
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// runJSON is a run as history and show print it.
type runJSON struct {
	ID         *int64  `json:"id"` // null for a noted fire, which has no id yet
	Task       string  `json:"task"`
	Slot       *string `json:"slot"`
	Trigger    string  `json:"trigger"`
	Status     string  `json:"status"`
	Attempt    int     `json:"attempt"`
	ExitCode   *int    `json:"exit_code"`
	StartedAt  *string `json:"started_at"`
	EndedAt    *string `json:"ended_at"`
	DurationMS *int64  `json:"duration_ms"`
	Host       string  `json:"host"`
	PID        int     `json:"pid"`
	LateMS     *int64  `json:"late_ms,omitempty"` // a scheduled fire: how long after its slot it started
	// LateOutcome: the run's outcome came after it was taken for dead (a
	// replay of its slot may have run too): why it was (catchup.LateOutcome).
	LateOutcome string `json:"late_outcome,omitempty"`
	// Waiting: a running retry waiting out its delay ("retry-delay") as of
	// now: its command has not started, and started_at is when the delay
	// began (catchup.WaitsRetryDelay).
	Waiting string `json:"waiting,omitempty"`
	// Noted: a fire this host noted while it could not reach the ledger,
	// which holds no record of it yet: the next scan records it
	// (catchup.Noted).
	Noted bool `json:"noted,omitempty"`
}

func toRunJSON(r store.Run, now time.Time) runJSON {
	j := runJSON{ID: &r.ID, Task: r.Task, Slot: jsonTime(r.Slot), Trigger: r.Trigger, Status: r.Status,
		Attempt: r.Attempt, ExitCode: r.ExitCode, StartedAt: jsonTime(r.StartedAt), EndedAt: jsonTime(r.EndedAt),
		Host: r.Host, PID: r.PID, LateOutcome: catchup.LateOutcome(r)}
	if catchup.WaitsRetryDelay(r, now) {
		j.Waiting = "retry-delay"
	}
	if catchup.Noted(r) {
		j.ID, j.Noted = nil, true
	}
	if !r.EndedAt.IsZero() {
		d := runDuration(r).Milliseconds()
		j.DurationMS = &d
	}
	if r.Trigger == store.TriggerSchedule && !r.Slot.IsZero() {
		late := r.StartedAt.Sub(r.Slot).Milliseconds()
		j.LateMS = &late
	}
	return j
}

func progressText(r store.Run) string {
	if r.Progress == nil {
		return "-"
	}
	return strconv.Itoa(*r.Progress) + "%"
}

func exitText(code *int) string {
	if code == nil {
		return "-"
	}
	return strconv.Itoa(*code)
}

// signalText is the signal that ended a run, or "-" when none did (0).
func signalText(sig int) string {
	if sig == 0 {
		return "-"
	}
	return strconv.Itoa(sig)
}

// durationText is how long run r took, "-" while it runs. A run found dead
// took at most that (its end is a bound: catchup.EndIsBound): "<=" in a
// table, "at most" in show (long).
func durationText(r store.Run, long bool) string {
	if r.EndedAt.IsZero() {
		return "-"
	}
	d := catchup.FormatDuration(runDuration(r).Round(time.Millisecond))
	switch {
	case !catchup.EndIsBound(r):
		return d
	case long:
		return "at most " + d
	}
	return "<=" + d
}

// runDuration is how long finished run r took, never negative: a ledger
// may hold an end before the start (recorded before Finish kept the end at
// or after the start, while the clock went back during the run); it took 0.
func runDuration(r store.Run) time.Duration {
	return max(r.EndedAt.Sub(r.StartedAt), 0)
}

// timeText is t in RFC 3339 in loc (runZone; UTC when RFC 3339 cannot
// write loc's offset then: schedule.RFC3339), for show's key-value lines;
// "-" when zero.
func timeText(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	return schedule.RFC3339(t, loc)
}
