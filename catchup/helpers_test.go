package catchup

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store/sqlite"
)

// testLedger opens a real SQLite ledger in a temp dir.
func testLedger(t testing.TB) (*sqlite.Ledger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catchup.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

// testMachine is a machine whose clock reads now; its jobs find the usual
// commands on the PATH.
func testMachine(db string, now time.Time) Machine {
	return Machine{
		Now: func() time.Time { return now }, Host: "testhost", BootID: "boot-1", PID: testPID,
		LockDir: db + ".locks", DB: db, Stdout: io.Discard, Stderr: io.Discard,
		Environ: []string{"PATH=" + os.Getenv("PATH")},
		HomeDir: func(string) (string, error) { return "/nonexistent", nil },
	}
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustSchedule(t testing.TB, expr, tz string) *schedule.Schedule {
	t.Helper()
	s, err := parseSchedule(expr, tz)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// slotLog is a job, run in dir, that appends "SLOT TRIGGER" to runs.log
// (SLOT in RFC 3339, "-" for none), and exits with the status written in
// exit-SLOTUNIX, if that file exists.
type slotLog struct{ dir string }

func (j slotLog) argv() []string {
	return []string{"sh", "-c", `echo "${CATCHUP_SLOT:--} $CATCHUP_TRIGGER" >> runs.log; ` +
		`if [ -f "exit-$CATCHUP_SLOT_UNIX" ]; then exit "$(cat "exit-$CATCHUP_SLOT_UNIX")"; fi`}
}

// exitAt makes the runs of slot exit with code.
func (j slotLog) exitAt(t *testing.T, slot time.Time, code int) {
	t.Helper()
	name := filepath.Join(j.dir, "exit-"+strconv.FormatInt(slot.Unix(), 10))
	if err := os.WriteFile(name, []byte(strconv.Itoa(code)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runs returns the lines the job wrote, oldest first.
func (j slotLog) runs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.dir, "runs.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
