package cmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestHistoryTellsALateOutcome: history says of a run whose outcome came
// after it was taken for dead that its slot may have run twice, under the
// table and in JSON (late_outcome); a plain run gets neither.
func TestHistoryTellsALateOutcome(t *testing.T) {
	at := time.Date(2026, 12, 4, 18, 55, 0, 0, time.UTC)
	exit0 := 0
	late := store.Run{ID: 434, Task: "p1", Slot: at, Status: store.StatusSucceeded, ExitCode: &exit0, StartedAt: at, EndedAt: at.Add(time.Second),
		Error: store.LateOutcomeNote + "no heartbeat from b for longer than the lease"}
	plain := store.Run{ID: 439, Task: "p1", Slot: at, Status: store.StatusSucceeded, ExitCode: &exit0, StartedAt: at, EndedAt: at.Add(time.Second)}

	var b strings.Builder
	if err := writeNotes(&b, []store.Run{late, plain}, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "note: run 434 (succeeded) ended after it was taken for dead (no heartbeat from b for longer than the lease): its slot may have run twice\n"
	if b.String() != want {
		t.Errorf("notes = %q\n want %q", b.String(), want)
	}
	for _, tc := range []struct {
		run  store.Run
		want string
	}{{late, `"late_outcome":"taken for dead before its outcome came: no heartbeat from b for longer than the lease"`}, {plain, ""}} {
		j, err := json.Marshal(toRunJSON(tc.run, time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(j); tc.want == "" && strings.Contains(got, "late_outcome") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("run %d's JSON %s; want %q", tc.run.ID, got, tc.want)
		}
	}
}
