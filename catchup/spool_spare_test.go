package catchup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNoteOutlivesAnUnwritableLockDir: a fire that ran while the ledger
// could not record it leaves a note so that the next scan does not run its
// slot again. The faults that stop the ledger (a full or read-only
// filesystem) stop the lock directory beside it too: the note then goes to
// the spare note directory (a tmpfs), and the next scan records it from
// there. With no place for the note, the fire says what that costs.
func TestNoteOutlivesAnUnwritableLockDir(t *testing.T) {
	for name, spare := range map[string]bool{"spare directory": true, "no spare directory": false} {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			// The lock directory cannot be made: a file stands at its path.
			if err := os.RemoveAll(f.m.LockDir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.m.LockDir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			var said bytes.Buffer
			m := f.m
			m.Now = func() time.Time { return mustTime(t, "2026-03-01T10:00:30Z") }
			m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			if spare {
				m.NoteDir = filepath.Join(t.TempDir(), "notes")
				f.m.NoteDir = m.NoteDir
			}
			res, err := Run(context.Background(), nil, errors.New("disk I/O error"), m, f.request(t))
			if err != nil || !res.Ran {
				t.Fatalf("unrecorded fire: %+v, %v; want it run", res, err)
			}
			if err := os.Remove(f.m.LockDir); err != nil { // the disk is fixed
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-01T10:30:00Z")
			ts := f.scan(t, scanRequest())
			got := strings.Join(f.job.runs(t), "|")
			if spare {
				if want := strings.Join(hours("schedule", 9, 10), "|"); got != want || ts.Replayed != 0 {
					t.Errorf("the job ran for %v (scan replayed %d), want %v: 10:00 once, noted", got, ts.Replayed, want)
				}
				return
			}
			if !strings.Contains(said.String(), "cannot keep a note of this fire") ||
				!strings.Contains(said.String(), "run slot 2026-03-01T10:00:00Z of job again") {
				t.Errorf("a fire whose note was lost said %q; want it to say the next scan runs 10:00 again", said.String())
			}
		})
	}
}
