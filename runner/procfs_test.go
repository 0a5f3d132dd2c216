package runner

import (
	"os"
	"syscall"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := map[string]struct {
		in        string
		wantState byte
		wantPgrp  int
		wantOK    bool
	}{
		"plain":               {in: "123 (sleep) S 1 120 120 0 -1", wantState: 'S', wantPgrp: 120, wantOK: true},
		"zombie":              {in: "124 (sh) Z 1 124 124 0", wantState: 'Z', wantPgrp: 124, wantOK: true},
		"comm with ) and spc": {in: "9 (a) b (c)) R 1 7 7", wantState: 'R', wantPgrp: 7, wantOK: true},
		"no paren":            {in: "9 sleep S 1 7", wantOK: false},
		"truncated":           {in: "9 (x) S 1", wantOK: false},
		"bad pgrp":            {in: "9 (x) S 1 abc", wantOK: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			st, pg, ok := parseStat([]byte(tc.in))
			if ok != tc.wantOK || (ok && (st != tc.wantState || pg != tc.wantPgrp)) {
				t.Fatalf("parseStat(%q) = %q, %d, %v; want %q, %d, %v", tc.in, st, pg, ok, tc.wantState, tc.wantPgrp, tc.wantOK)
			}
		})
	}
}

func TestLiveGroupMember(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	alive, ok := liveGroupMember(syscall.Getpgrp())
	if !ok || !alive {
		t.Fatalf("our own group: alive=%v ok=%v, want true, true", alive, ok)
	}
}
