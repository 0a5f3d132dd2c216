package backend

import (
	"encoding/json"

	"github.com/catchup/catchup/store"
)

// PruneOffset is the OFFSET, in a task's runs newest first, of the newest
// run Prune keeps: req.Keep runs are kept, and at least the latest.
func PruneOffset(req store.PruneRequest) int {
	return max(req.Keep, 1) - 1
}

// PruneAdding is req.Adding as a JSON object (task -> count) for the
// prune statements to read: "{}" unless a dry run (a real prune finds the
// added records in the ledger).
func PruneAdding(req store.PruneRequest) string {
	if !req.DryRun || len(req.Adding) == 0 {
		return "{}"
	}
	b, err := json.Marshal(req.Adding) // a map of string to int always marshals
	if err != nil {
		return "{}"
	}
	return string(b)
}

// PruneAddingRan is req.AddingRan with req.AddingLast and
// req.AddingLastPaused as a JSON object (task -> [n, the last expired
// slot, the last paused slot], in Unix seconds or null) for the prune
// statements to read: "{}" unless a dry run.
func PruneAddingRan(req store.PruneRequest) string {
	if !req.DryRun || len(req.AddingRan) == 0 {
		return "{}"
	}
	out := make(map[string][3]any, len(req.AddingRan))
	for task, n := range req.AddingRan {
		var last, lastPaused any
		if t, ok := req.AddingLast[task]; ok && n > 0 {
			last = t.Unix()
		}
		if t, ok := req.AddingLastPaused[task]; ok && req.Adding[task] > n {
			lastPaused = t.Unix()
		}
		out[task] = [3]any{n, last, lastPaused}
	}
	b, err := json.Marshal(out) // numbers and nulls always marshal
	if err != nil {
		return "{}"
	}
	return string(b)
}

// PruneLeave is req.Leave as a JSON array (of task names) for the prune
// statements to read: "[]" when it names none.
func PruneLeave(req store.PruneRequest) string {
	if len(req.Leave) == 0 {
		return "[]"
	}
	b, err := json.Marshal(req.Leave) // a slice of strings always marshals
	if err != nil {
		return "[]"
	}
	return string(b)
}

// PruneOwed is req.Owed as a JSON object (task -> the earliest slot owed,
// in Unix seconds) for the prune statements to read: "{}" when it names
// none.
func PruneOwed(req store.PruneRequest) string {
	if len(req.Owed) == 0 {
		return "{}"
	}
	out := make(map[string]int64, len(req.Owed))
	for task, slot := range req.Owed {
		out[task] = slot.Unix()
	}
	b, err := json.Marshal(out) // a map of string to int always marshals
	if err != nil {
		return "{}"
	}
	return string(b)
}
