package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
)

type calendarSlotJSON struct {
	Slot  string `json:"slot"`
	State string `json:"state"`
	RunID int64  `json:"run_id,omitempty"`
	Cause string `json:"cause,omitempty"` // a missed slot's, as ls --missed's missed_causes
}

type calendarTaskJSON struct {
	Task    string             `json:"task"`
	TZ      string             `json:"tz"`
	Warning string             `json:"warning,omitempty"`
	Slots   []calendarSlotJSON `json:"slots"`
}

// calendarJSON is the document calendar -o json writes; calendarJSONWriter
// writes it a task at a time, byte for byte as renderJSON writes it whole.
type calendarJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	Zone string `json:"zone"`
	// SkippedDates are the dates (YYYY-MM-DD) between from's and to's
	// that the zone skipped: no slot is on them, and the grid has no
	// column for them.
	SkippedDates []string           `json:"skipped_dates,omitempty"`
	Tasks        []calendarTaskJSON `json:"tasks"`
}

// calendarJSONWriter writes the calendar's JSON document as its rows come:
// 10,000 every-minute tasks are 100 M slots, never held at once.
type calendarJSONWriter struct {
	w     *bufio.Writer
	g     calendarGrid
	tasks int
	err   error
}

// newCalendarJSONWriter writes nothing until the first task or the end: a
// calendar that fails before them (an unknown task) writes no document.
func (g calendarGrid) newCalendarJSONWriter(w io.Writer) *calendarJSONWriter {
	return &calendarJSONWriter{w: bufio.NewWriterSize(w, 64<<10), g: g}
}

// head writes the document up to its tasks.
func (j *calendarJSONWriter) head() {
	g := j.g
	j.write("{\n")
	for _, f := range []struct{ name, value string }{{"from", g.days.Start(0).UTC().Format(time.RFC3339)},
		{"to", g.now.UTC().Format(time.RFC3339)}, {"zone", g.zone}} {
		j.write(`  "` + f.name + `": `)
		j.marshal(f.value, "")
		j.write(",\n")
	}
	if skipped := g.skippedDates(); len(skipped) > 0 {
		j.write(`  "skipped_dates": `)
		j.marshal(skipped, "  ")
		j.write(",\n")
	}
	j.write(`  "tasks": [`)
}

// skippedDates are the dates the grid's zone skipped between its days, as
// JSON names them.
func (g calendarGrid) skippedDates() []string {
	var out []string
	for _, d := range g.days.Skipped {
		out = append(out, d.Format(time.DateOnly))
	}
	return out
}

// add writes one task's row.
func (j *calendarJSONWriter) add(r catchup.CalendarRow) error {
	tz := r.Zone.String()
	if r.Zone == time.Local { // a task with no zone registered (no schedule): "", as ls -o json names it
		tz = ""
	}
	t := calendarTaskJSON{Task: r.Task, TZ: tz, Warning: r.Warning, Slots: make([]calendarSlotJSON, 0, len(r.Slots))}
	for _, s := range r.Slots {
		t.Slots = append(t.Slots, calendarSlotJSON{Slot: schedule.RFC3339(s.Slot, r.Zone), State: s.State, RunID: s.RunID, Cause: s.Cause})
	}
	if j.tasks == 0 {
		j.head()
	} else {
		j.write(",")
	}
	j.write("\n    ")
	j.marshal(t, "    ")
	j.tasks++
	return j.err
}

// close ends the document and flushes it.
func (j *calendarJSONWriter) close() error {
	if j.tasks == 0 {
		j.head()
	} else {
		j.write("\n  ")
	}
	j.write("]\n}\n")
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

func (j *calendarJSONWriter) marshal(v any, prefix string) {
	if j.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false) // as renderJSON
	if j.err = enc.Encode(v); j.err != nil {
		return
	}
	_, j.err = j.w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func (j *calendarJSONWriter) write(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}
