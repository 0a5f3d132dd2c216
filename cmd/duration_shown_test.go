package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// Every duration shown to people is in the house format (catchup.FormatDuration,
// as a catch-up window is named): "1h30m", "12h", "7d", never Go's
// "1h30m0s": RUNNING FOR and the --stuck line, a run's DURATION, a flag's
// default in --help.
func TestDurationsShownInTheHouseFormat(t *testing.T) {
	start := time.Date(2026, 11, 10, 2, 0, 3, 0, time.UTC)
	ran := func(d time.Duration, status string) store.Run {
		return store.Run{ID: 1, Task: "d", Status: status, StartedAt: start, EndedAt: start.Add(d)}
	}
	tests := map[string]struct {
		got  func() string
		want string
	}{
		"running for": {func() string {
			return runningFor(catchup.RunningRun{For: 2*time.Hour + 30*time.Minute + 400*time.Millisecond})
		}, "2h30m"},
		"running for whole hours": {func() string { return runningFor(catchup.RunningRun{For: time.Hour}) }, "1h"},
		"running for a day":       {func() string { return runningFor(catchup.RunningRun{For: 24 * time.Hour}) }, "1d"},
		"a run's duration":        {func() string { return durationText(ran(time.Hour, store.StatusSucceeded), false) }, "1h"},
		"a dead run's bound":      {func() string { return durationText(ran(90*time.Minute, store.StatusInterrupted), true) }, "at most 1h30m"},
		"seconds stay":            {func() string { return durationText(ran(61500*time.Millisecond, store.StatusSucceeded), false) }, "1m1.5s"},
		"a flag's value":          {func() string { return newDuration(new(time.Duration), 5*time.Minute).String() }, "5m"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.got(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// --help gives a duration flag's default as it is written: --lease 1m, not
// 1m0s.
func TestHelpGivesDurationDefaultsInTheHouseFormat(t *testing.T) {
	out := help(t, newRoot(&globals{}, nil), []string{"run", "--help"})
	for _, want := range []string{"(default 1m)", "(default 5m)", "(default 10s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("run --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "m0s)") {
		t.Errorf("run --help gives a default as Go prints it:\n%s", out)
	}
}
