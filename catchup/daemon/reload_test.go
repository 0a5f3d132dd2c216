package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// TestFileStampsSeeAModeChange: a reload refused because the crontab was
// group-writable is tried again once the mode is fixed (chmod changes
// neither the size nor the modification time).
func TestFileStampsSeeAModeChange(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(p, []byte("* * * * * true\n"), 0o664); err != nil {
		t.Fatal(err)
	}
	before := Stamp([]string{p})
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if after := Stamp([]string{p}); after == before {
		t.Errorf("Stamp did not change with the mode: %q", after)
	}
}

// TestSameTaskComparesSchedulesByMeaning: a reload that finds a line's
// schedule written otherwise (1-5 for MON-FRI) keeps the task's loop; a
// changed schedule restarts it.
func TestSameTaskComparesSchedulesByMeaning(t *testing.T) {
	t.Parallel()
	task := func(expr string) Task {
		s, err := schedule.Parse(expr, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return Task{Def: store.Task{Name: "job", Schedule: expr, TZ: "UTC"}, Sched: s}
	}
	for name, c := range map[string]struct {
		a, b string
		want bool
	}{
		"same text":      {"30 6 * * 1-5", "30 6 * * 1-5", true},
		"other spelling": {"30 6 * * MON-FRI", "30 6 * * 1-5", true},
		"macro":          {"@daily", "0 0 * * *", true},
		"other schedule": {"30 6 * * 1-5", "30 6 * * 1-6", false},
	} {
		if got := sameTask(task(c.a), task(c.b)); got != c.want {
			t.Errorf("%s: sameTask(%q, %q) = %v, want %v", name, c.a, c.b, got, c.want)
		}
	}
}

// TestSettlerWaitsForAStillFile: a crontab rewritten in place (nano, cat >,
// cp) is empty or cut short between the writer's writes; the watcher
// reports a change only once the file's stamp has read the same at
// settlePolls polls in a row after it changed, and reports a settled
// stamp once.
func TestSettlerWaitsForAStillFile(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		polls []string // the stamps the polls read, after "A" at start
		want  []bool   // whether each poll reports a change
	}{
		"unchanged":             {[]string{"A", "A", "A"}, []bool{false, false, false}},
		"changed, then still":   {[]string{"B", "B", "B", "B"}, []bool{false, false, true, false}},
		"emptied, then written": {[]string{"empty", "B", "B", "B"}, []bool{false, false, false, true}},
		"cut, written, still":   {[]string{"cut", "cut", "B", "B", "B"}, []bool{false, false, false, false, true}},
		"back as it was":        {[]string{"empty", "A", "A", "A"}, []bool{false, false, false, false}},
		"changed twice":         {[]string{"B", "B", "B", "C", "C", "C"}, []bool{false, false, true, false, false, true}},
	} {
		s := newSettler("A")
		for i, stamp := range c.polls {
			if got := s.observe(stamp); got != c.want[i] {
				t.Errorf("%s: poll %d (%s) reported %v, want %v", name, i+1, stamp, got, c.want[i])
			}
		}
	}
}
