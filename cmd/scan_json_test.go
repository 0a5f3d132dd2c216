package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
)

// wholeActionJSON and wholeTaskJSON are scan's JSON report as it was
// built whole before writeScanJSON wrote it as it goes: the document
// writeScanJSON writes must be the one renderJSON writes of them.
type wholeTaskJSON struct {
	Task          string           `json:"task"`
	Policy        string           `json:"policy"`
	Missed        int              `json:"missed"`
	MissedSlots   []*string        `json:"missed_slots"`
	MissedCauses  []string         `json:"missed_causes"`
	Causes        map[string]int   `json:"causes"`
	Replayed      int              `json:"replayed"`
	WouldReplay   *int             `json:"would_replay,omitempty"`
	Failed        int              `json:"failed"`
	Skipped       int              `json:"skipped"`
	Interrupted   int              `json:"interrupted"`
	Expired       int              `json:"expired"`
	Left          int              `json:"left,omitempty"`
	NotReplayable int              `json:"not_replayable,omitempty"`
	Refused       int              `json:"refused,omitempty"`
	Paused        int              `json:"paused"`
	ClockAhead    *string          `json:"clock_ahead"`
	Actions       []scanActionJSON `json:"actions"`
	Warnings      []string         `json:"warnings"`
}

func wholeScanJSON(rep catchup.ScanReport, dry bool) any {
	tasks := []wholeTaskJSON{}
	for _, t := range rep.Tasks {
		j := wholeTaskJSON{Task: t.Task, Policy: t.Policy, Missed: len(t.Missed), MissedSlots: []*string{},
			MissedCauses: append([]string{}, t.Causes...), Causes: map[string]int{}, Replayed: t.Replayed,
			Failed: t.Failed, Skipped: t.Skipped, Interrupted: t.Interrupted, Expired: t.Expired, Left: t.Left - t.Stuck, Paused: t.Paused,
			NotReplayable: t.Stuck, Refused: t.Refused, ClockAhead: jsonTime(t.ClockAhead),
			Actions: []scanActionJSON{}, Warnings: append([]string{}, t.Warnings...)}
		if dry {
			n := countAction(t.SlotActions(), catchup.ActionPlanned)
			j.WouldReplay = &n
		}
		for _, s := range t.Missed {
			j.MissedSlots = append(j.MissedSlots, jsonTime(s))
		}
		for _, c := range t.Causes {
			j.Causes[c]++
		}
		for aj := range actionsJSON(&t) {
			j.Actions = append(j.Actions, aj)
		}
		tasks = append(tasks, j)
	}
	return map[string]any{"tasks": tasks, "warnings": append([]string{}, rep.Warnings...)}
}

func TestScanJSONWrittenAsBuiltWhole(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	full := catchup.TaskScan{Task: "a<b>&c", Policy: "all", Replayed: 1, Failed: 1, Skipped: 1, Expired: 2, Left: 3, Stuck: 1,
		Refused: 1, Paused: 2, Interrupted: 1,
		Missed:   []time.Time{at("2026-01-01T00:00:00Z"), at("2026-01-01T01:00:00+02:00"), {}},
		Causes:   []string{"host-down", "not-fired", "not-fired"},
		Warnings: []string{"task a: \"quoted\" <html> & \u00e9\u2028", ""},
		Actions: []catchup.SlotAction{
			{Slot: at("2026-01-01T00:00:00Z"), Action: catchup.ActionReplayed, RunID: 7, Cause: "host-down"},
			{Slot: at("2026-01-01T01:00:00Z"), Action: catchup.ActionFailed, RunID: 8, ExitCode: 3, Reason: "exit <3>\n"},
			{Slot: at("2026-01-01T02:00:00Z"), Action: catchup.ActionDropped, Reason: "coalesced"},
			{Slot: at("2026-01-01T03:00:00Z"), Action: catchup.ActionSkipped, NoExit: true},
			{Slot: at("2026-01-01T04:00:00Z"), Action: catchup.ActionPlanned},
			{Action: catchup.ActionExpired, RunID: 9},
		}}
	tests := map[string]struct {
		rep catchup.ScanReport
		dry bool
	}{
		"nothing":                    {},
		"a task with nothing":        {rep: catchup.ScanReport{Tasks: []catchup.TaskScan{{Task: "t", Policy: "all"}}}},
		"a task of each list":        {rep: catchup.ScanReport{Tasks: []catchup.TaskScan{full}, Warnings: []string{"w1", "<w2>"}}},
		"a dry run":                  {rep: catchup.ScanReport{Tasks: []catchup.TaskScan{full}}, dry: true},
		"tasks, clock ahead":         {rep: catchup.ScanReport{Tasks: []catchup.TaskScan{{Task: "t", ClockAhead: at("2030-01-01T00:00:00Z")}, full, {Task: "u"}}}},
		"only the report's warnings": {rep: catchup.ScanReport{Warnings: []string{"crontab x refused"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := renderJSON(&want, wholeScanJSON(tc.rep, tc.dry)); err != nil {
				t.Fatal(err)
			}
			if err := writeScanJSON(&got, tc.rep, tc.dry); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("line %d: got %q, want %q (of the document renderJSON writes)", i+1, g[i], w[i])
					}
				}
				t.Fatalf("got %d lines, want %d:\n%s", len(g), len(w), got.String())
			}
		})
	}
}
