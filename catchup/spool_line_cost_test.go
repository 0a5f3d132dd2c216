package catchup

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestNoteOfLineCheap: a line of a notes file costs its reader time in
// proportion to its length. A user's notes file is read by root's scan and
// readers (spool_users.go); a line of nested objects, each `{"` of which
// starts a value running to the line's end, was parsed from every `{"`
// again to the end: one line of 1 MiB took minutes.
func TestNoteOfLineCheap(t *testing.T) {
	// Serial: it bounds a duration.
	const depth = 9000
	line := append(bytes.Repeat([]byte(`{"a":`), depth), '[')
	for len(line) < 1<<20-2 {
		line = append(line, "0,"...)
	}
	start := time.Now()
	if _, ok := noteOfLine(line); ok {
		t.Fatal("a line of no note read as a note")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("one line of %d bytes took %v to read, want well under 2s", len(line), d)
	}
}

// TestNoteOfLineWithARegistration: a note as deep as they come (its
// registration's argv), whole or after a torn one, still reads.
func TestNoteOfLineWithARegistration(t *testing.T) {
	t.Parallel()
	whole := spoolEntry{Task: "t", Ran: true, Register: &noteTask{Schedule: "* * * * *", Argv: []string{"sh", "-c", `echo "{"`}}}
	b, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	for name, line := range map[string]string{
		"whole":            string(b),
		"torn, then whole": string(b[:60]) + string(b),
		"trailing blanks":  string(b) + " \t",
	} {
		t.Run(name, func(t *testing.T) {
			e, ok := noteOfLine([]byte(line))
			if !ok || e.Register == nil || len(e.Register.Argv) != 3 {
				t.Fatalf("noteOfLine(%q) = %+v, %v", line, e, ok)
			}
		})
	}
}
