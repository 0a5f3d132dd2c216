package catchup

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// skipUnrecorded is a ledger that lost its connection as a run record was
// written (a backend terminated): it records no run of its own.
type skipUnrecorded struct{ store.Store }

func (skipUnrecorded) AddRun(context.Context, store.Run) (int64, error) {
	return 0, fmt.Errorf("write ledger db:5432/x: %w: FATAL: terminating connection due to administrator command (SQLSTATE 57P01)",
		store.ErrLedgerUnreachable)
}

// TestUnrecordedDuplicateSaysSo: a duplicate fire whose skipped record
// could not be written says so, and does not also say that it recorded
// it (before: "cannot record the duplicate fire: ...", then "...; recorded
// skipped, not run again").
func TestUnrecordedDuplicateSaysSo(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.run(t, f.request(t))
	var said bytes.Buffer
	f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	f.now = mustTime(t, "2026-03-01T10:00:40Z") // a second cron's fire of 10:00
	res, err := Run(context.Background(), skipUnrecorded{f.st}, nil, f.m, f.request(t))
	if err != nil || res.Ran {
		t.Fatalf("Run = %+v, %v; want the duplicate not run", res, err)
	}
	got := said.String()
	if !strings.Contains(got, "duplicate fire of slot") || !strings.Contains(got, "57P01") || strings.Contains(got, "recorded skipped") {
		t.Errorf("said:\n%s\nwant the duplicate and why its record failed, never that it was recorded skipped", got)
	}
	if runs := f.history(t); len(runs) != 1 || len(f.job.runs(t)) != 1 {
		t.Errorf("runs %+v, job ran %d times; want the first run alone", runs, len(f.job.runs(t)))
	}
}
