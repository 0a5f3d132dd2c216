package store_test

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestResetClockBringsThePauseBack: a pause that began later than now was
// recorded while the clock was ahead (a pause begins at the clock's now);
// reset-clock moves its start to the watermark, after the watermark's own
// move, and drops an end set then too (until catchup resume). A pause that
// began before now keeps its start and its end, even an end far ahead (a
// legitimate pause --until); a dry run changes nothing.
func TestResetClockBringsThePauseBack(t *testing.T) {
	glitch := t0.Add(5 * 365 * 24 * time.Hour)
	now, floor := t0.Add(48*time.Hour), t0.Add(24*time.Hour)
	cases := []struct {
		name                 string
		settled              time.Time // the watermark before
		pausedAt, until      time.Time
		dry                  bool
		wantAt, wantUntil    time.Time // the pause after
		wantResAt, wantResTo time.Time // what the result says moved (PausedAt, PausedUntil)
		wantFrom             time.Time
	}{
		{name: "paused ahead", settled: t0.Add(40 * time.Hour), pausedAt: glitch,
			wantAt: t0.Add(40 * time.Hour), wantResAt: glitch, wantFrom: t0.Add(40 * time.Hour)},
		{name: "paused ahead, watermark ahead", settled: glitch, pausedAt: glitch,
			wantAt: floor, wantResAt: glitch, wantFrom: floor},
		{name: "paused and resumed ahead", settled: t0.Add(40 * time.Hour), pausedAt: glitch, until: glitch.Add(time.Hour),
			wantAt: t0.Add(40 * time.Hour), wantResAt: glitch, wantResTo: glitch.Add(time.Hour), wantFrom: t0.Add(40 * time.Hour)},
		{name: "dry run", settled: t0.Add(40 * time.Hour), pausedAt: glitch, until: glitch.Add(time.Hour), dry: true,
			wantAt: glitch, wantUntil: glitch.Add(time.Hour), wantResAt: glitch, wantResTo: glitch.Add(time.Hour), wantFrom: t0.Add(40 * time.Hour)},
		{name: "paused before now, until far ahead", settled: t0.Add(40 * time.Hour), pausedAt: t0.Add(41 * time.Hour), until: glitch,
			wantAt: t0.Add(41 * time.Hour), wantUntil: glitch},
	}
	forEachBackend(t, func(t *testing.T, be backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := be.fresh(t)
				upsert(t, s, store.Task{Name: "p", Schedule: "0 * * * *", TZ: "UTC", Source: "run", RegisteredAt: t0, UpdatedAt: t0,
					SettledThrough: c.settled})
				if err := s.SetPause(t.Context(), "p", c.pausedAt, c.until); err != nil {
					t.Fatal(err)
				}
				res, err := s.ResetClock(t.Context(), store.ClockReset{Task: "p", Now: now, Floor: floor, Note: "detached", DryRun: c.dry})
				if err != nil {
					t.Fatal(err)
				}
				if !res.PausedAt.Equal(c.wantResAt) || !res.PausedUntil.Equal(c.wantResTo) || !res.PausedFrom.Equal(c.wantFrom) {
					t.Errorf("result: paused at %v (want %v), until %v (want %v), from %v (want %v)",
						res.PausedAt, c.wantResAt, res.PausedUntil, c.wantResTo, res.PausedFrom, c.wantFrom)
				}
				task, err := s.Task(t.Context(), "p")
				if err != nil {
					t.Fatal(err)
				}
				if !task.PausedAt.Equal(c.wantAt) || !task.PausedUntil.Equal(c.wantUntil) {
					t.Errorf("pause after: %v until %v; want %v until %v", task.PausedAt, task.PausedUntil, c.wantAt, c.wantUntil)
				}
			})
		}
	})
}
