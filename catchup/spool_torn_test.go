package catchup

import (
	"encoding/json"
	"testing"
	"time"
)

// TestTornNoteKeepsTheNoteAfterIt: a note torn by a write cut short (a full
// disk), with the next whole note appended to it, leaves that whole note
// readable; a line that holds no whole note is none.
func TestTornNoteKeepsTheNoteAfterIt(t *testing.T) {
	t.Parallel()
	whole := spoolEntry{Task: "t", Slot: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC), Ran: true, Status: "succeeded",
		Error: `said {"quoted"} and }{`}
	b, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		line string
		want bool
	}{
		"whole":                      {string(b), true},
		"torn, then whole":           {string(b[:23]) + string(b), true},
		"torn in a nested object":    {`{"task":"t","register":{"name":"x","sch` + string(b), true},
		"torn alone":                 {string(b[:40]), false},
		"garbage":                    {"not a note at all", false},
		"an object that is no note":  {`{"name":"x"}`, false},
		"torn, then an invalid name": {string(b[:23]) + `{"task":"../x"}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			e, ok := noteOfLine([]byte(c.line))
			if ok != c.want {
				t.Fatalf("noteOfLine(%q) = %v, want %v", c.line, ok, c.want)
			}
			if ok && (e.Task != whole.Task || !e.Slot.Equal(whole.Slot) || e.Error != whole.Error) {
				t.Fatalf("noteOfLine(%q) = %+v, want %+v", c.line, e, whole)
			}
		})
	}
}
