package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// holdingLine writes the daemon's crontab: a job that writes its slot,
// and, when it finds hold, takes it and runs until release appears.
func (h *daemonHost) holdingLine() (hold, release string) {
	dir := filepath.Dir(h.cron)
	hold, release = filepath.Join(dir, "hold"), filepath.Join(dir, "release")
	line := fmt.Sprintf("# catchup: task=job\n* * * * * echo \"$CATCHUP_SLOT $CATCHUP_TRIGGER\" >> %s; "+
		"if [ -e %s ]; then rm %s; while [ ! -e %s ]; do sleep 0.05; done; fi\n", h.out, hold, hold, release)
	if err := os.WriteFile(h.cron, []byte(line), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { touch(h.t, release) }) // a job still holding ends with the test
	return hold, release
}

// waitSlotsFrom waits until n slots from first on have each been written.
func (h *daemonHost) waitSlotsFrom(first time.Time, n int) {
	waitFor(h.t, fmt.Sprintf("%d slots from %s each run", n, first.Format(time.RFC3339)), func() bool {
		count, _, _ := h.written(false)
		for i := range n {
			if count[first.Add(time.Duration(i)*time.Minute)] == 0 {
				return false
			}
		}
		return true
	})
}

// checkOrderAfter checks that the slots written after the first line of
// slot held run oldest first: none before an older one.
func (h *daemonHost) checkOrderAfter(held time.Time) {
	var after []string
	seen := false
	for _, l := range readLines(h.t, h.out) {
		if seen {
			after = append(after, l)
		}
		seen = seen || strings.HasPrefix(l, held.Format(time.RFC3339))
	}
	var prev time.Time
	for _, l := range after {
		s, err := time.Parse(time.RFC3339, strings.Fields(l)[0])
		if err != nil {
			h.t.Fatalf("bad line %q", l)
		}
		if !s.After(prev) {
			h.t.Errorf("slot %s ran after slot %s: not oldest first; lines after the held slot's:\n%s",
				s.Format(time.RFC3339), prev.Format(time.RFC3339), strings.Join(after, "\n"))
			return
		}
		prev = s
	}
}

// checkNoneBefore checks that no slot later than cut was written before
// cut's first line: a fire that waited behind cut's run, cut short, must
// not run its own later slot before cut is replayed.
func (h *daemonHost) checkNoneBefore(cut time.Time) {
	var before []string
	for _, l := range readLines(h.t, h.out) {
		s, err := time.Parse(time.RFC3339, strings.Fields(l)[0])
		if err != nil {
			h.t.Fatalf("bad line %q", l)
		}
		if s.Equal(cut) {
			break
		}
		if s.After(cut) {
			before = append(before, l)
		}
	}
	if len(before) > 0 {
		h.t.Errorf("slots after the cut slot %s ran before it was replayed: not oldest first:\n%s",
			cut.Format(time.RFC3339), strings.Join(before, "\n"))
	}
}
