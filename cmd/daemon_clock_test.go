package cmd

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestDaemonClock(t *testing.T) {
	epoch := time.Now().Add(-10 * time.Second).Unix()
	tests := map[string]struct {
		env  map[string]string
		rate float64
		err  string
	}{
		"real clock":       {env: map[string]string{}, rate: 1},
		"a second minute":  {env: map[string]string{"CATCHUP_TEST_MINUTE": "1s", "CATCHUP_TEST_EPOCH": itoa(epoch)}, rate: 60},
		"bad duration":     {env: map[string]string{"CATCHUP_TEST_MINUTE": "soon"}, err: "want a duration up to 1m"},
		"longer than 1m":   {env: map[string]string{"CATCHUP_TEST_MINUTE": "2m"}, err: "want a duration up to 1m"},
		"with CATCHUP_NOW": {env: map[string]string{"CATCHUP_TEST_MINUTE": "1s", "CATCHUP_NOW": "2026-01-01T00:00:00Z"}, err: "exclude each other"},
		"bad epoch":        {env: map[string]string{"CATCHUP_TEST_MINUTE": "1s", "CATCHUP_TEST_EPOCH": "yesterday"}, err: "want Unix seconds"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			now, rate, err := daemonClock(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || rate != tc.rate {
				t.Fatalf("rate %v err %v, want %v", rate, err, tc.rate)
			}
			if rate == 60 {
				// 10s of real time since the epoch are 10 clock minutes.
				got := now().Sub(time.Unix(epoch, 0))
				if got < 10*time.Minute || got > 12*time.Minute {
					t.Errorf("clock %v after the epoch, want about 10m", got)
				}
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
