package catchup

import (
	"os"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestRootScanRefusesAnotherUsersTask: a task that another user's
// `catchup run --cron` registered (its cron line writing to a ledger root
// also scans: a shared PostgreSQL ledger) is an argv task whose command is
// that user's. A root scan does not run it as root: it says so, and leaves
// its slots missed (counted left), for that user's own scan. Root's own
// tasks replay as before, and so do the user's in the user's own scan.
func TestRootScanRefusesAnotherUsersTask(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the scan is root's")
	}
	f := newRunFixture(t, "2026-03-01T09:00:30Z")
	if res := f.run(t, f.request(t)); res.ExitCode != 0 { // registered by root
		t.Fatalf("registering fire: exit %d", res.ExitCode)
	}
	task, err := f.st.Task(t.Context(), f.request(t).Task)
	if err != nil {
		t.Fatal(err)
	}
	if task.Source != "run" {
		t.Fatalf("root's registration has source %q, want run", task.Source)
	}
	task.Source = runSource(1001, false) // as alice's own fire registers it
	if err := f.st.UpsertTask(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	f.now = mustTime(t, "2026-03-01T11:30:00Z")
	ts := f.scan(t, scanRequest())
	if ts.Replayed != 0 || ts.Left != 2 || len(ts.Warnings) != 1 || !strings.Contains(ts.Warnings[0], "uid 1001") {
		t.Errorf("root's scan: replayed %d, left %d, warnings %q; want nothing run, 2 left, one warning naming uid 1001",
			ts.Replayed, ts.Left, ts.Warnings)
	}
	if got := f.job.runs(t); len(got) != 1 {
		t.Errorf("the job ran for %v, want only root's own first fire", got)
	}
	// The user's own scan (not root) replays them.
	f.m.UID = 1001
	if w := refusedAsRoot(f.m, task); w != "" {
		t.Errorf("the user's own scan is refused: %s", w)
	}
}

// TestRefusedAsRoot: which registrations a root scan refuses to run.
func TestRefusedAsRoot(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		source, shell string
		uid           int
		refused       bool
	}{
		"root's run":                   {source: "run"},
		"another user's run":           {source: "run:uid=1001", refused: true},
		"that user's own scan":         {source: "run:uid=1001", uid: 1001},
		"root's redacted run":          {source: "run" + RedactedMark},
		"another user's redacted run":  {source: "run:uid=1001" + RedactedMark, refused: true},
		"root's daemon":                {source: "daemon:/etc/catchup/crontab:3"},
		"another user's daemon":        {source: "daemon:/home/a/crontab:3 uid=1001", refused: true},
		"a crontab line (as its user)": {source: "crontab:/var/spool/cron/crontabs/alice:2", shell: "true"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := refusedAsRoot(Machine{UID: tc.uid}, store.Task{Name: "x", Source: tc.source, Shell: tc.shell})
			if (w != "") != tc.refused {
				t.Errorf("refusedAsRoot(%q, uid %d) = %q, want refused %v", tc.source, tc.uid, w, tc.refused)
			}
			if tc.refused && !strings.Contains(w, "uid 1001's") {
				t.Errorf("refusedAsRoot(%q) = %q: want it to name uid 1001", tc.source, w)
			}
		})
	}
}
