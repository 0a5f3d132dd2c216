package deepstack

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// TestReserveGrowsTheStack runs Reserve under a stack limit below 64 KB
// in a child process: the runtime must stop it for exceeding the limit,
// which shows the frame is really there (not optimized away). Under a
// limit above, it returns.
func TestReserveGrowsTheStack(t *testing.T) {
	if limit := os.Getenv("DEEPSTACK_TEST_LIMIT"); limit != "" {
		n := 48 << 10
		if limit == "high" {
			n = 1 << 20
		}
		debug.SetMaxStack(n)
		done := make(chan struct{})
		go func() { Reserve(); close(done) }()
		<-done
		return
	}
	tests := map[string]struct {
		limit    string
		overflow bool
	}{
		"a 48 KB limit stops it":  {"low", true},
		"a 1 MB limit lets it be": {"high", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestReserveGrowsTheStack$")
			cmd.Env = append(os.Environ(), "DEEPSTACK_TEST_LIMIT="+tc.limit)
			out, err := cmd.CombinedOutput()
			overflow := strings.Contains(string(out), "stack exceeds 49152-byte limit")
			if overflow != tc.overflow || (err == nil) == tc.overflow {
				t.Fatalf("limit %s: err %v, stack overflow %v, want overflow %v\n%s", tc.limit, err, overflow, tc.overflow, out)
			}
		})
	}
}
