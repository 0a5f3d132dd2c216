package daemon

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestMovedLineKeepsItsLoop: a reload that finds a task's line elsewhere
// (a line added above it, a comment) keeps its loop, and does not log it
// as changed: only its registered source (daemon:FILE:LINE) differs. It
// was logged "task changed" and restarted (its next fires held behind a
// long job of its old loop, not fired on time).
func TestMovedLineKeepsItsLoop(t *testing.T) {
	t.Parallel()
	started := time.Date(2026, 3, 1, 10, 0, 30, 0, time.UTC)
	f := newFireFixture(t, "tick", "all", started)
	ctx, cancel := context.WithCancel(context.Background())
	s := &tasks{d: f.d, ctx: ctx, stopping: ctx, running: map[string]*scheduled{}}
	s.set([]Task{f.task}, time.Time{})
	first := s.running["tick"]
	moved := f.task
	moved.Def.Source = "daemon:test:7"
	s.set([]Task{moved}, started)
	again := s.running["tick"]
	cancel()
	s.loops.Wait()
	f.d.fires.Wait()
	if again != first {
		t.Error("the moved line's task got a new loop")
	}
	if logs := f.logs.String(); strings.Contains(logs, "task changed") {
		t.Errorf("a moved line was logged as a changed task:\n%s", logs)
	}
	if again.task.Def.Source != "daemon:test:7" {
		t.Errorf("the loop's task keeps source %q, want the moved line's", again.task.Def.Source)
	}
}
