package catchup

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestExplainSaysAMissedSlotsDirIsRefused: a slot left missed because its
// task's working directory is refused (a scan's replays leave it, a
// daemon line's fires run nothing there: X12) records nothing, so explain
// told only its cause, "not-fired: the host was up but nothing fired it",
// as if a replay would come. Now its summary says, checked as the scan
// checks it (here, now, as this user), that it stays missed while the
// directory is refused, with the refusal and its fix (a daemon line's:
// its HOME). A trusted directory adds nothing.
func TestExplainSaysAMissedSlotsDirIsRefused(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 11, 13, 2, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		source string
		spoil  func(t *testing.T, dir string)
		want   string // in the summary; "" for no refusal
	}{
		"trusted": {source: "run", spoil: func(*testing.T, string) {}},
		"writable by others": {source: "run", spoil: func(t *testing.T, dir string) { mustDo(t, os.Chmod(dir, 0o777)) },
			want: `^missed \(not-fired: [^)]*\); it stays missed, no replay starts: working directory \S+/work: refused: it is writable by others \(mode 0777\); fix: chmod go-w \S+/work$`},
		"a daemon line's missing home": {source: "daemon:/etc/c.cron:2:0", spoil: func(t *testing.T, dir string) { mustDo(t, os.Remove(dir)) },
			want: `; it stays missed, no replay starts: working directory \S+/work: refused: it cannot be used: no such file or directory; fix: make it again, or set HOME in the crontab, above the line, to a directory of your own$`},
	} {
		t.Run(name, func(t *testing.T) {
			st, db := testLedger(t)
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "work")
			mustDo(t, os.Mkdir(dir, 0o755))
			mustDo(t, os.Chmod(dir, 0o755)) // whatever the umask
			if err := trustedWorkDir(dir, os.Geteuid()); err != nil {
				t.Skipf("the test's directory is not trusted here: %v", err)
			}
			reg := mustTime(t, "2026-11-12T02:00:00Z")
			if err := st.UpsertTask(ctx, store.Task{Name: "job", Schedule: "0 2 * * *", TZ: "UTC", Argv: []string{"./job.sh"},
				Dir: dir, Source: tc.source, RegisteredAt: reg, SettledThrough: reg}); err != nil {
				t.Fatal(err)
			}
			if err := st.SeeBoot(ctx, store.Boot{Host: "testhost", ID: "boot-1", Time: reg, FirstSeen: reg, LastSeen: reg}); err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, dir)
			m := testMachine(db, mustTime(t, "2026-11-13T04:00:00Z"))
			m.UID = os.Geteuid()
			x, err := Explain(ctx, st, m, ExplainRequest{Task: "job", Slot: slot, MissedRule: MissedRule{Tolerance: 5 * time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			if x.State != StateMissed {
				t.Fatalf("state %s (%s), want missed", x.State, x.Summary)
			}
			refused := regexp.MustCompile(`refused`).MatchString(x.Summary)
			switch {
			case tc.want == "" && refused:
				t.Errorf("summary %q: its directory is trusted", x.Summary)
			case tc.want != "" && !regexp.MustCompile(tc.want).MatchString(x.Summary):
				t.Errorf("summary %q\nwant it to match %s", x.Summary, tc.want)
			}
		})
	}
}
