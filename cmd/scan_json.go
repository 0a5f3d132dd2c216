package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/catchup/catchup/catchup"
)

// scan's JSON report, written as it is made. A gap of a year of an
// every-minute task lists half a million slots, causes and actions: 154
// MB of JSON that, built whole (a value per slot, then the document in one
// buffer), took 1.4 GB. Each task's lists are written an element at a
// time, each element as encoding/json indents it in place: the document
// is the one renderJSON wrote of the whole report, byte for byte.

type scanActionJSON struct {
	Slot     *string `json:"slot"`
	Action   string  `json:"action"`
	RunID    *int64  `json:"run_id"`
	ExitCode *int    `json:"exit_code"` // null for a slot nothing ran for (expired, a dry run's plan)
	Cause    string  `json:"cause,omitempty"`
	Reason   string  `json:"reason,omitempty"`
}

// scanTaskJSON is a task's part of the report. Its three lists of a
// slot each are written in turn, in place of their marks (listMark).
type scanTaskJSON struct {
	Task          string          `json:"task"`
	Policy        string          `json:"policy"`
	Missed        int             `json:"missed"`
	MissedSlots   json.RawMessage `json:"missed_slots"`  // []*string
	MissedCauses  json.RawMessage `json:"missed_causes"` // []string
	Causes        map[string]int  `json:"causes"`
	Replayed      int             `json:"replayed"`
	WouldReplay   *int            `json:"would_replay,omitempty"` // a dry run's: the slots it lists would replay (replayed stays 0: nothing ran)
	Failed        int             `json:"failed"`
	Skipped       int             `json:"skipped"`
	Interrupted   int             `json:"interrupted"`
	Expired       int             `json:"expired"`
	Left          int             `json:"left,omitempty"`
	NotReplayable int             `json:"not_replayable,omitempty"` // never counted in left: no scan replays them
	Refused       int             `json:"refused,omitempty"`        // of left: the task's replays refused before any started (its warning says why)
	Paused        int             `json:"paused"`
	ClockAhead    *string         `json:"clock_ahead"`
	Actions       json.RawMessage `json:"actions"` // []scanActionJSON
	Warnings      []string        `json:"warnings"`
}

// listMark stands for a list in a task's encoded fields: the list is
// written where `"key": mark` is (no string holds it: a string's quotes
// are escaped).
var listMark = json.RawMessage("0")

// writeScanJSON writes scan's JSON report; a dry run's (dry) adds
// would_replay.
func writeScanJSON(out io.Writer, rep catchup.ScanReport, dry bool) error {
	w := bufio.NewWriter(out)
	w.WriteString("{\n  \"tasks\": ")
	l := jsonList{w: w, indent: "  "}
	for i := range rep.Tasks {
		if err := l.next(func(prefix string) error { return writeTaskJSON(w, prefix, &rep.Tasks[i], dry) }); err != nil {
			return err
		}
	}
	l.end()
	w.WriteString(",\n  \"warnings\": ")
	if err := writeIndented(w, "  ", append([]string{}, rep.Warnings...)); err != nil {
		return err
	}
	w.WriteString("\n}\n")
	return w.Flush() // a bufio.Writer keeps the first write error
}

// writeTaskJSON writes task t's object, its lines after the first
// beginning with prefix.
func writeTaskJSON(w *bufio.Writer, prefix string, t *catchup.TaskScan, dry bool) error {
	j := scanTaskJSON{Task: t.Task, Policy: t.Policy, Missed: len(t.Missed), MissedSlots: listMark,
		MissedCauses: listMark, Causes: map[string]int{}, Replayed: t.Replayed,
		Failed: t.Failed, Skipped: t.Skipped, Interrupted: t.Interrupted, Expired: t.Expired, Left: t.Left - t.Stuck, Paused: t.Paused,
		NotReplayable: t.Stuck, Refused: t.Refused, ClockAhead: jsonTime(t.ClockAhead),
		Actions: listMark, Warnings: append([]string{}, t.Warnings...)}
	if dry {
		n := countAction(t.SlotActions(), catchup.ActionPlanned)
		j.WouldReplay = &n
	}
	for _, c := range t.Causes {
		j.Causes[c]++
	}
	var head bytes.Buffer
	if err := encodeIndented(&head, prefix, j); err != nil {
		return err
	}
	fields := head.Bytes()
	lists := []struct {
		key   string
		write func(l *jsonList) error
	}{
		{"missed_slots", func(l *jsonList) error { return writeEach(l, missedSlotsJSON(t)) }},
		{"missed_causes", func(l *jsonList) error { return writeEach(l, slices.Values(t.Causes)) }},
		{"actions", func(l *jsonList) error { return writeEach(l, actionsJSON(t)) }},
	}
	for _, list := range lists {
		mark := fmt.Sprintf("\n%s  %q: %s", prefix, list.key, listMark)
		at := bytes.Index(fields, []byte(mark))
		if at < 0 {
			return fmt.Errorf("scan's JSON report: no place for task %s's %s", t.Task, list.key)
		}
		at += len(mark) - len(listMark)
		w.Write(fields[:at])
		fields = fields[at+len(listMark):]
		l := jsonList{w: w, indent: prefix + "  "}
		if err := list.write(&l); err != nil {
			return err
		}
		l.end()
	}
	w.Write(fields)
	return nil
}

// writeEach writes each of values to l, encoded by one encoder into one
// buffer.
func writeEach[V any](l *jsonList, values iter.Seq[V]) error {
	var b bytes.Buffer
	enc := newIndentedEncoder(&b, l.indent+"  ")
	for v := range values {
		b.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		// The encoder's newline left out.
		if err := l.next(func(string) error { _, err := l.w.Write(b.Bytes()[:b.Len()-1]); return err }); err != nil {
			return err
		}
	}
	return nil
}

// missedSlotsJSON yields t's missed slots as the report shows them.
func missedSlotsJSON(t *catchup.TaskScan) iter.Seq[*string] {
	return func(yield func(*string) bool) {
		for _, s := range t.Missed {
			if !yield(jsonTime(s)) {
				return
			}
		}
	}
}

// actionsJSON yields t's slot actions as the report shows them.
func actionsJSON(t *catchup.TaskScan) iter.Seq[scanActionJSON] {
	return func(yield func(scanActionJSON) bool) {
		for a := range t.SlotActions() {
			if a.LeftForNextScan() {
				continue // counted in left, as the other slots left, which have no action
			}
			aj := scanActionJSON{Slot: jsonTime(a.Slot), Action: a.Action, Cause: a.Cause, Reason: a.Reason}
			switch {
			case a.NoExit:
			case a.Action == catchup.ActionExpired, a.Action == catchup.ActionPlanned, a.Action == catchup.ActionDropped,
				a.Action == catchup.ActionWouldExpire:
			default:
				aj.ExitCode = &a.ExitCode
			}
			if a.RunID != 0 {
				id := a.RunID
				aj.RunID = &id
			}
			if !yield(aj) {
				return
			}
		}
	}
}

// jsonList writes a JSON array an element at a time, indented as
// renderJSON indents it: "[]" when empty, else each element on a line of
// its own, indent and two spaces before it, the closing bracket after
// indent.
type jsonList struct {
	w      *bufio.Writer
	indent string // the line's the array begins on
	n      int
}

// next writes an element: write writes it, its lines after the first
// beginning with the prefix it is given.
func (l *jsonList) next(write func(prefix string) error) error {
	if l.n == 0 {
		l.w.WriteString("[")
	} else {
		l.w.WriteString(",")
	}
	l.n++
	l.w.WriteString("\n" + l.indent + "  ")
	return write(l.indent + "  ")
}

// end closes the array.
func (l *jsonList) end() {
	if l.n == 0 {
		l.w.WriteString("[]")
		return
	}
	l.w.WriteString("\n" + l.indent + "]")
}

// writeIndented writes v as renderJSON would inside its document, its
// lines after the first beginning with prefix.
func writeIndented(w *bufio.Writer, prefix string, v any) error {
	var b bytes.Buffer
	if err := encodeIndented(&b, prefix, v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// encodeIndented appends v to b as renderJSON encodes it, its lines after
// the first beginning with prefix, without the encoder's final newline.
func encodeIndented(b *bytes.Buffer, prefix string, v any) error {
	if err := newIndentedEncoder(b, prefix).Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

// newIndentedEncoder is renderJSON's encoder, writing to b, its lines
// after the first beginning with prefix.
func newIndentedEncoder(b *bytes.Buffer, prefix string) *json.Encoder {
	enc := json.NewEncoder(b)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	return enc
}
