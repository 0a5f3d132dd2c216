package cmd

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/catchup/catchup/catchup/taskname"
)

// FuzzRunFlags feeds arbitrary values to run's flags (durations, times,
// names, expressions, zones) through the real flag parser and the request
// step: it must never panic, every error must be one line, and what it
// accepts is checked.
func FuzzRunFlags(f *testing.F) {
	f.Add("daily", "0 2 * * *", "Europe/Berlin", "5m", "1h", "10s", "2026-01-02T03:00:00Z", "all", "3")
	f.Add("../etc", "@reboot", "Mars/Olympus", "-5m", "1e9h", "", "yesterday", "bogus", "-1")
	f.Add("a", "* * * * * *", "", "0", "9223372036854775807ns", "1.5h", "2026-13-45T99:99:99Z", "none", "")
	f.Add(".hidden", "61 * * * *", "Local", "1d", "5", "1h1m1s1ms", "2026-01-02T03:00:00+25:00", "latest", "x")
	f.Fuzz(func(t *testing.T, task, cron, tz, tol, timeout, killAfter, slot, replay, retries string) {
		var rf runFlags
		c := &cobra.Command{Use: "run"}
		bindRunFlags(c, &rf)
		args := []string{"--task", task, "--cron", cron, "--tz", tz, "--tolerance", tol, "--timeout", timeout,
			"--kill-after", killAfter, "--slot", slot, "--replay", replay, "--retries", retries, "--", "true"}
		if err := c.ParseFlags(args); err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line flag error: %q", err)
			}
			return
		}
		if rf.task != task {
			t.Fatalf("task flag lost: %q", rf.task)
		}
		req, err := rf.request([]string{"true"}, func(string) string { return "" }, io.Discard)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if !taskname.Valid(req.Task) || (slot != "" && req.Slot.IsZero()) || (cron != "" && req.Schedule == nil) {
			t.Fatalf("accepted an invalid request: %+v", req)
		}
	})
}
