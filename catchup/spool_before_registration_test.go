package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestNotedSkipsBeforeARemadeRegistrationAreSaid: fires of a task read
// from the ledger, whose claims then could not be recorded (a shared
// ledger's tables dropped), ran nothing and noted so, each saying the
// next scan replays its slot. The ledger re-made empty, the task is
// registered anew after them (a daemon's start, the next fire): the notes
// are recorded for slots before its registration, which no reader counts
// and no scan replays, and nothing said so. The import says it once for
// the task, with the backfill that runs them; it backdates nothing (a slot
// that ran on the lost ledger would run again).
func TestNotedSkipsBeforeARemadeRegistrationAreSaid(t *testing.T) {
	t.Parallel()
	for name, registeredFirst := range map[string]bool{
		"fire_records_then_registers": false, // the task unknown when the notes are recorded
		"registered_then_recorded":    true,  // a daemon's start registers its lines, then its scan records them
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testNotedSkipsBeforeRegistration(t, registeredFirst)
		})
	}
}

func testNotedSkipsBeforeRegistration(t *testing.T, registeredFirst bool) {
	f := newRunFixture(t, "2026-03-01T12:00:30Z")
	var mu sync.Mutex
	var said []string
	f.m.Notice = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		said = append(said, fmt.Sprintf(format, args...))
	}
	// The notes of 10:00 and 11:00, as fires that had read their task
	// leave them: no registration.
	for _, slot := range []string{"2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z"} {
		at := mustTime(t, slot).Add(2 * time.Second)
		e := spoolEntry{Task: "job", Slot: mustTime(t, slot), Trigger: store.TriggerSchedule, Host: "testhost",
			BootID: "boot-1", PID: 7, StartedAt: at, EndedAt: at, Error: "relation \"tasks\" does not exist"}
		if err := writeNote(f.m, e); err != nil {
			t.Fatal(err)
		}
	}
	if registeredFirst {
		req := f.request(t)
		at := mustTime(t, "2026-03-01T11:30:00Z")
		if err := f.st.UpsertTask(t.Context(), store.Task{Name: "job", Schedule: "0 * * * *", TZ: "UTC", Replay: "all",
			Argv: req.Argv, Dir: req.Dir, RegisteredAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	} else {
		// The re-made ledger's first fire records the notes, then
		// registers the task (12:00).
		f.run(t, f.request(t))
	}
	f.now = mustTime(t, "2026-03-01T12:10:00Z")
	if _, err := Scan(t.Context(), f.st, f.m, scanRequest()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.m.LockDir, spoolName)); err == nil {
		t.Fatal("the notes were not recorded")
	}
	want := "task job: 2 noted fires that ran nothing (slots 2026-03-01T10:00:00Z to 2026-03-01T11:00:00Z) came before its registration"
	fix := "catchup backfill --task job --from 2026-03-01T10:00:00Z --to 2026-03-01T11:00:00Z"
	n := 0
	for _, s := range said {
		if strings.Contains(s, want) && strings.Contains(s, fix) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("said %q\nwant once %q ... %q", said, want, fix)
	}
	for _, r := range f.history(t) {
		if r.Trigger == store.TriggerReplay && r.Slot.Before(mustTime(t, "2026-03-01T11:30:00Z")) {
			t.Errorf("replayed %s: the slots before the registration are the operator's to backfill", r.Slot)
		}
	}
}
