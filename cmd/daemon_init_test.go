package cmd

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestDaemonWarnsWhenInit: as PID 1 (a container's entrypoint without an
// init) the daemon says at start, in its log, that it does not reap the
// orphans its jobs leave, and what to run it under; otherwise it says
// nothing. Zombies piled up without a word.
func TestDaemonWarnsWhenInit(t *testing.T) {
	for name, tc := range map[string]struct {
		pid  int
		warn bool
	}{
		"PID 1":     {pid: 1, warn: true},
		"not PID 1": {pid: 4242, warn: false},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			warnInit(slog.New(slog.NewTextHandler(&buf, nil)), tc.pid)
			got := buf.String()
			if warned := strings.Contains(got, "event=warning") && strings.Contains(got, "tini") &&
				strings.Contains(got, "docker run --init"); warned != tc.warn || strings.Count(got, "\n") > 1 {
				t.Errorf("as pid %d the daemon logged %q; want a one-line warning: %v", tc.pid, got, tc.warn)
			}
		})
	}
}
