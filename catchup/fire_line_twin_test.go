package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestLineTwinIsTheSameMinutesFire: a crontab line's fire that cannot read
// the ledger runs nothing beside a noted fire of its line that ran in its
// minute, on the same side of the minute's early window, and succeeded, or
// failed or timed out (a failing job runs once per slot, R13: before, the
// twin of a failed fire ran it again), unless --force; never beside any
// other note (interrupted: its slot is replayed, as a recorded one's is).
func TestLineTwinIsTheSameMinutesFire(t *testing.T) {
	t.Parallel()
	first := spoolEntry{Task: "cu", Trigger: store.TriggerManual, Ran: true, Status: store.StatusSucceeded,
		StartedAt: mustTime(t, "2026-12-01T10:00:01Z")}
	for name, c := range map[string]struct {
		note  spoolEntry
		now   string
		twin  bool
		force bool
	}{
		"twin in the minute":               {first, "2026-12-01T10:00:40Z", true, false},
		"clock stepped back before it":     {first, "2026-12-01T10:00:00Z", true, false},
		"both early for the next minute":   {noteAt(first, "2026-12-01T10:00:56Z"), "2026-12-01T10:00:58Z", true, false},
		"the next minute":                  {first, "2026-12-01T10:01:01Z", false, false},
		"early for the next minute's slot": {first, "2026-12-01T10:00:57Z", false, false},
		"after an early fire":              {noteAt(first, "2026-12-01T10:00:56Z"), "2026-12-01T10:00:30Z", false, false},
		"another task":                     {noteWith(first, func(e *spoolEntry) { e.Task = "other" }), "2026-12-01T10:00:40Z", false, false},
		"a failed fire":                    {noteWith(first, func(e *spoolEntry) { e.Status = store.StatusFailed }), "2026-12-01T10:00:40Z", true, false},
		"a timed-out fire":                 {noteWith(first, func(e *spoolEntry) { e.Status = store.StatusTimeout }), "2026-12-01T10:00:40Z", true, false},
		"a failed fire, --force":           {noteWith(first, func(e *spoolEntry) { e.Status = store.StatusFailed }), "2026-12-01T10:00:40Z", false, true},
		"an interrupted fire":              {noteWith(first, func(e *spoolEntry) { e.Status = store.StatusInterrupted }), "2026-12-01T10:00:40Z", false, false},
		"a fire that did not run":          {noteWith(first, func(e *spoolEntry) { e.Ran, e.Status = false, "" }), "2026-12-01T10:00:40Z", false, false},
		"a lock skip":                      {noteWith(first, func(e *spoolEntry) { e.Ran, e.Status, e.Locked = false, "", true }), "2026-12-01T10:00:40Z", false, false},
		"a run by hand":                    {noteWith(first, func(e *spoolEntry) { e.ByHand = true }), "2026-12-01T10:00:40Z", false, false},
		"a fire that named its slot": {noteWith(first, func(e *spoolEntry) { e.Slot = mustTime(t, "2026-12-01T10:00:00Z") }),
			"2026-12-01T10:00:40Z", false, false},
	} {
		t.Run(name, func(t *testing.T) {
			var said []string
			l := &lifecycle{req: RunRequest{Task: "cu", Force: c.force}, m: Machine{Notice: func(f string, a ...any) { said = append(said, f) }}}
			notes := &pendingNotes{outcomes: map[int64]spoolEntry{}}
			notes.add([]spoolEntry{c.note})
			if got := l.lineTwinOf(notes, mustTime(t, c.now)); got != c.twin {
				t.Fatalf("twin: %v, want %v", got, c.twin)
			}
			if c.twin && (len(said) != 1 || !strings.Contains(said[0], "this fire is its twin")) {
				t.Errorf("said %q, want one line naming the twin", said)
			}
			if !c.twin && len(said) != 0 {
				t.Errorf("said %q, want nothing", said)
			}
		})
	}
}

// TestLineTwinStandsForOneSlot: two fires that sameCronMinute pairs stand
// for one slot, as the scan that records their notes reads them
// (noteSlot), under any schedule: whole hours, every minute, every two
// (a minute that does not match, whose last seconds are early for the
// next), a zone half an hour off UTC, and Berlin's DST changes.
func TestLineTwinStandsForOneSlot(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		expr, zone, from string
	}{
		"hourly":               {"0 * * * *", "UTC", "2026-12-01T09:00:00Z"},
		"every minute":         {"* * * * *", "UTC", "2026-12-01T09:00:00Z"},
		"every two minutes":    {"*/2 * * * *", "UTC", "2026-12-01T09:00:00Z"},
		"half an hour off UTC": {"0 * * * *", "Asia/Kolkata", "2026-12-01T09:00:00Z"},
		"spring forward":       {"*/15 2 * * *", "Europe/Berlin", "2026-03-28T23:30:00Z"},
		"fall back":            {"30 2 * * *", "Europe/Berlin", "2026-10-24T23:30:00Z"},
		"fall back, every 7th": {"*/7 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z"},
	} {
		t.Run(name, func(t *testing.T) {
			s := mustSchedule(t, c.expr, c.zone)
			from := mustTime(t, c.from)
			known := from.Add(-24 * time.Hour)
			for m := from; m.Before(from.Add(4 * time.Hour)); m = m.Add(time.Minute) {
				var slots [2]time.Time
				seen := [2]bool{}
				for sec := 0; sec < 60; sec++ {
					a := m.Add(time.Duration(sec)*time.Second + 300*time.Millisecond)
					side := 0
					if !sameCronMinute(a, m) {
						side = 1
					}
					slot := noteSlot(s, known, spoolEntry{StartedAt: a}, time.Minute)
					if !seen[side] {
						slots[side], seen[side] = slot, true
						continue
					}
					if !slot.Equal(slots[side]) {
						t.Fatalf("fires at %s and earlier in its minute, paired as twins, stand for %s and %s", a, slot, slots[side])
					}
				}
			}
		})
	}
}

func noteAt(e spoolEntry, s string) spoolEntry {
	e.StartedAt, _ = time.Parse(time.RFC3339, s)
	return e
}

func noteWith(e spoolEntry, f func(*spoolEntry)) spoolEntry {
	f(&e)
	return e
}

// TestLineSlotTwinsStandForOneSlot: fires that sameLineSlot pairs, minute
// by minute over DST days of odd zones, get one slot from the scan's
// noteSlot (the first's note is recorded for it; the second, held, leaves
// none), and a fire it pairs with a fire of another slot would be a lost
// slot: none is. Each fire is paired with every later fire of the 26
// hours whose minute matches (a fall-back's second hour included), and
// with late fires of each (as a succeeded note is held against: every
// other fire, in turn).
func TestLineSlotTwinsStandForOneSlot(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		expr, zone, from string
		pairs            int // at least this many pairs held: the rule is exercised
	}{
		"Casablanca fall back":  {"30 2 * * *", "Africa/Casablanca", "2026-02-14T12:00:00Z", 1},
		"New York fall back":    {"30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 1},
		"Lord Howe half hour":   {"45 1 * * *", "Australia/Lord_Howe", "2026-04-04T00:00:00Z", 1},
		"Berlin every 20 min":   {"*/20 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 0},
		"Berlin spring forward": {"30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 0},
		"hourly UTC":            {"0 * * * *", "UTC", "2026-12-01T00:00:00Z", 0},
	} {
		t.Run(name, func(t *testing.T) {
			s := mustSchedule(t, c.expr, c.zone)
			from := mustTime(t, c.from)
			known := from.Add(-24 * time.Hour)
			var fires []time.Time // cron's fires: each minute the line matches, and the catch-up after a gap
			for m := from; m.Before(from.Add(26 * time.Hour)); m = m.Add(time.Minute) {
				if lineFireOfSchedule(s, m) {
					fires = append(fires, m.Add(2*time.Second))
				}
			}
			pairs := 0
			var later []time.Time // each fire, and a fire of its slot minutes late (a second cron)
			for _, f := range fires {
				later = append(later, f, f.Add(3*time.Minute+10*time.Second))
			}
			for i, a := range fires {
				for _, b := range later {
					if !b.After(a) {
						continue
					}
					slot, ok := sameLineSlot(s, a, b, i%2 == 0)
					if !ok {
						continue
					}
					pairs++
					sa := noteSlot(s, known, spoolEntry{StartedAt: a}, time.Minute)
					sb := noteSlot(s, known, spoolEntry{StartedAt: b}, time.Minute)
					if !sa.Equal(slot) || !sb.Equal(slot) {
						t.Fatalf("fires at %s and %s held as cron's fires of slot %s, which the scan reads as %s and %s", a, b, slot, sa, sb)
					}
				}
			}
			if pairs < c.pairs {
				t.Fatalf("%d pairs held, want at least %d", pairs, c.pairs)
			}
		})
	}
}
