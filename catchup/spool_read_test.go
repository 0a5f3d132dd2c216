package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// TestReadersCountTheNotes: until the next scan records this host's notes
// of unrecorded fires, the readers (ls, metrics, explain, calendar) read
// them as that scan will record them, and leave them: a slot whose fire ran
// unrecorded, or whose run's outcome is noted, is not missed; one whose
// fire did not run is missed because the ledger could not be reached, or
// because its lock file could not be opened (lock-file: the ledger was fine).
// Read from the ledger alone, each was missed (not-fired, interrupted).
// A notes file another user could have written is not counted.
func TestReadersCountTheNotes(t *testing.T) {
	t.Parallel()
	const noteAt = "2026-03-01T10:00:30Z"
	tests := map[string]struct {
		fire       func(t *testing.T, f *runFixture) // the 10:00 fire, while the ledger cannot record it
		missed     string                            // the cause of 10:00's miss; "" for not missed
		state      string                            // explain's
		cell       string                            // calendar's
		named      bool                              // explain and calendar name a run of the ledger
		notCounted bool                              // the readers say they did not count the notes
	}{
		"ran unrecorded": {
			fire:  func(t *testing.T, f *runFixture) { f.fireUnrecorded(t, noteAt) },
			state: StateUnrecorded, cell: CellRan,
		},
		"ran unrecorded, noted in the spare directory": {
			fire: func(t *testing.T, f *runFixture) {
				f.m.NoteDir = filepath.Join(t.TempDir(), "notes")
				if err := os.RemoveAll(f.m.LockDir); err != nil { // a file where the lock directory goes
					t.Fatal(err)
				}
				if err := os.WriteFile(f.m.LockDir, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				f.fireUnrecorded(t, noteAt)
				if err := os.Remove(f.m.LockDir); err != nil {
					t.Fatal(err)
				}
			},
			state: StateUnrecorded, cell: CellRan,
		},
		"ran unrecorded, its note without a slot": {
			fire: func(t *testing.T, f *runFixture) {
				line := fmt.Sprintf(`{"task":"job","trigger":"schedule","host":"h","started_at":%q,"ended_at":%q,"ran":true,"status":"succeeded","exit_code":0,"error":"x"}`+"\n",
					noteAt, noteAt)
				if err := os.WriteFile(filepath.Join(f.m.LockDir, spoolName), []byte(line), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			state: StateUnrecorded, cell: CellRan,
		},
		"not run": {
			fire: func(t *testing.T, f *runFixture) {
				if res, err := f.strictFireAt(t, noteAt, nil, errors.New("ledger unreachable")); res.Ran {
					t.Fatalf("strict fire without a ledger: %+v, %v; want it not run", res, err)
				}
			},
			missed: CauseUnreachable, state: StateMissed, cell: CellMissed,
		},
		"not run, its lock file not to be opened": {
			fire: func(t *testing.T, f *runFixture) {
				lock := filepath.Join(f.m.LockDir, "job.lock") // a directory left at its path
				if err := os.Remove(lock); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(lock, 0o700); err != nil {
					t.Fatal(err)
				}
				if res, err := f.strictFireAt(t, noteAt, f.st, nil); res.Ran || !errors.Is(err, ErrOpenLockFile) {
					t.Fatalf("strict fire without its lock file: %+v, %v; want it not run, for the lock file", res, err)
				}
			},
			missed: CauseLockFile, state: StateMissed, cell: CellMissed,
		},
		"not run, its lock directory refused, noted in the spare directory": {
			fire: func(t *testing.T, f *runFixture) {
				f.m.NoteDir = filepath.Join(t.TempDir(), "notes") // the fire's, and the readers look there too
				// Writable by others: refused, for the lock and the note.
				if err := os.Chmod(f.m.LockDir, 0o777); err != nil {
					t.Fatal(err)
				}
				if res, err := f.strictFireAt(t, noteAt, f.st, nil); res.Ran || !errors.Is(err, filetrust.ErrRefused) {
					t.Fatalf("strict fire with its lock directory refused: %+v, %v; want it not run, for the directory", res, err)
				}
				if err := os.Chmod(f.m.LockDir, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			missed: CauseLockFile, state: StateMissed, cell: CellMissed,
		},
		"not run, noted by an older catchup": { // no lock_fault: the ledger's fault
			fire: func(t *testing.T, f *runFixture) {
				line := fmt.Sprintf(`{"task":"job","slot":"2026-03-01T10:00:00Z","trigger":"schedule","host":"h","started_at":%q,"ended_at":%q,"ran":false,"error":"x"}`+"\n",
					noteAt, noteAt)
				if err := os.WriteFile(filepath.Join(f.m.LockDir, spoolName), []byte(line), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			missed: CauseUnreachable, state: StateMissed, cell: CellMissed,
		},
		"outcome noted, its run taken for interrupted": {
			fire: func(t *testing.T, f *runFixture) {
				m := f.m
				m.Now = func() time.Time { return mustTime(t, noteAt) }
				res, err := Run(context.Background(), failingFinish{f.st}, nil, m, f.request(t))
				if err != nil || !res.Ran {
					t.Fatalf("fire with a failing outcome write: %+v, %v", res, err)
				}
				if _, err := f.st.Interrupt(context.Background(), res.Run.ID, mustTime(t, "2026-03-01T10:05:00Z"), "no heartbeat"); err != nil {
					t.Fatal(err)
				}
			},
			state: StateUnrecorded, cell: CellRan, named: true,
		},
		"ran unrecorded, notes writable by others": {
			fire: func(t *testing.T, f *runFixture) {
				f.fireUnrecorded(t, noteAt)
				if err := os.Chmod(filepath.Join(f.m.LockDir, spoolName), 0o622); err != nil {
					t.Fatal(err)
				}
			},
			missed: CauseNotFired, state: StateMissed, cell: CellMissed, notCounted: true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			f.m.BootID, f.m.BootTime = "boot-1", mustTime(t, "2026-03-01T08:00:00Z")
			if res := f.run(t, f.request(t)); res.ExitCode != 0 {
				t.Fatalf("registering fire: exit %d", res.ExitCode)
			}
			tc.fire(t, f)
			notes, spare := filepath.Join(f.m.LockDir, spoolName), ""
			if p, ok := spareNotes(f.m); ok {
				spare = p
			}
			before := noteFiles(notes, spare)
			var said strings.Builder
			f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
			f.now = mustTime(t, "2026-03-01T10:30:00Z")
			ctx, slot := context.Background(), mustTime(t, "2026-03-01T10:00:00Z")
			rule := MissedRule{MaxAge: DefaultMaxAge, Tolerance: 5 * time.Minute}

			list, err := List(ctx, f.st, f.m, ListRequest{Rule: rule})
			if err != nil {
				t.Fatal(err)
			}
			wantMissed, wantCauses := "[]", "[]"
			if tc.missed != "" {
				wantMissed, wantCauses = fmt.Sprint([]time.Time{slot}), fmt.Sprint([]string{tc.missed})
			}
			if len(list) != 1 {
				t.Fatalf("List: %d tasks, want job", len(list))
			}
			if got := fmt.Sprint(list[0].Missed, list[0].Causes); got != wantMissed+" "+wantCauses {
				t.Errorf("List: missed, causes %s; want %s %s", got, wantMissed, wantCauses)
			}
			x, err := Explain(ctx, f.st, f.m, ExplainRequest{Task: "job", Slot: slot, MissedRule: rule})
			if err != nil {
				t.Fatal(err)
			}
			if x.State != tc.state || (tc.missed != "" && x.Cause != tc.missed) || (x.Run != nil) != tc.named {
				t.Errorf("Explain: state %s, cause %q, run %v (%s); want %s, cause %q, a run of the ledger named: %v",
					x.State, x.Cause, x.Run, x.Summary, tc.state, tc.missed, tc.named)
			}
			rows := calendarRows(t, f.st, f.m, CalendarRequest{From: mustTime(t, "2026-03-01T08:30:00Z"), To: f.now, Rule: rule})
			if c := cellAt(rows, slot); c.State != tc.cell || (c.RunID != 0) != tc.named {
				t.Errorf("Calendar: 10:00 is %+v; want %s, a run of the ledger named: %v", c, tc.cell, tc.named)
			}
			if got := strings.Contains(said.String(), "not counting the notes"); got != tc.notCounted {
				t.Errorf("the readers said %q; want a word that the notes were not counted: %v", said.String(), tc.notCounted)
			}
			if after := noteFiles(notes, spare); after != before || before == "" {
				t.Errorf("notes files before the readers: %q, after: %q; want them left as they were", before, after)
			}
		})
	}
}

// noteFiles lists the notes files among paths, with their sizes.
func noteFiles(paths ...string) string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Stat(p); p != "" && err == nil {
			out = append(out, fmt.Sprintf("%s:%d", p, fi.Size()))
		}
	}
	return strings.Join(out, " ")
}

// cellAt is the calendar's cell of slot.
func cellAt(rows []CalendarRow, slot time.Time) CalendarSlot {
	for _, r := range rows {
		for _, c := range r.Slots {
			if c.Slot.Equal(slot) {
				return c
			}
		}
	}
	return CalendarSlot{}
}

// strictFireAt fires f's request with --strict at at, on st (openErr: why
// it could not be opened); the fixture's own clock is left as it is.
func (f *runFixture) strictFireAt(t *testing.T, at string, st store.Store, openErr error) (RunResult, error) {
	t.Helper()
	m := f.m
	m.Now = func() time.Time { return mustTime(t, at) }
	req := f.request(t)
	req.Strict = true
	return Run(context.Background(), st, openErr, m, req)
}
