package cmd

import (
	"strings"
	"testing"
	"time"
)

// TestClockPinnedOnlyByCatchupNow: CATCHUP_NOW pins the clock (a time
// given, never compared with the ledger server's); CATCHUP_CLOCK_OFFSET
// moves the real clock, which stays this host's (not pinned), so that a
// test sees the clock-skew warning; both at once, or an offset that is no
// duration, are refused.
func TestClockPinnedOnlyByCatchupNow(t *testing.T) {
	tests := map[string]struct {
		env    map[string]string
		pinned bool
		offset time.Duration // from the real clock; with pinned, unchecked
		err    string
	}{
		"real clock":         {},
		"CATCHUP_NOW":        {env: map[string]string{"CATCHUP_NOW": "2026-01-02T03:04:05Z"}, pinned: true},
		"offset ahead":       {env: map[string]string{"CATCHUP_CLOCK_OFFSET": "90s"}, offset: 90 * time.Second},
		"offset behind":      {env: map[string]string{"CATCHUP_CLOCK_OFFSET": "-2m"}, offset: -2 * time.Minute},
		"offset not a value": {env: map[string]string{"CATCHUP_CLOCK_OFFSET": "soon"}, err: `CATCHUP_CLOCK_OFFSET="soon" is not a duration`},
		"both": {env: map[string]string{"CATCHUP_NOW": "2026-01-02T03:04:05Z", "CATCHUP_CLOCK_OFFSET": "90s"},
			err: "CATCHUP_NOW and CATCHUP_CLOCK_OFFSET exclude each other"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			now, pinned, err := clock(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pinned != tc.pinned {
				t.Errorf("pinned %v, want %v", pinned, tc.pinned)
			}
			if tc.pinned {
				return
			}
			if off := now().Sub(time.Now()) - tc.offset; off.Abs() > time.Second {
				t.Errorf("clock is %v off the real one plus %v", off, tc.offset)
			}
		})
	}
}
