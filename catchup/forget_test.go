package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestSilenceWarning(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 2, 0, 0, 0, time.UTC) }
	cronTask := store.Task{Name: "t", Schedule: "0 2 * * *", Source: "run", RegisteredAt: day(1), MaxAge: 2 * 24 * time.Hour}
	with := func(f func(*store.Task)) store.Task { t := cronTask; f(&t); return t }
	tests := map[string]struct {
		task     store.Task
		last     time.Time // the task's own latest fire
		cron     time.Time // any task's latest fire
		now      time.Time
		wantFlag bool
	}{
		"fired lately":                {task: cronTask, last: day(5), cron: day(6), now: day(6), wantFlag: false},
		"silent while others fire":    {task: cronTask, last: day(1), cron: day(6), now: day(6), wantFlag: true},
		"an outage: nothing fired":    {task: cronTask, last: day(1), cron: day(1), now: day(6), wantFlag: false},
		"others fired within window":  {task: cronTask, last: day(1), cron: day(2), now: day(6), wantFlag: false},
		"never fired, registered old": {task: cronTask, cron: day(6), now: day(6), wantFlag: true},
		"a crontab task":              {task: with(func(t *store.Task) { t.Source = "crontab:/c:1" }), last: day(1), cron: day(6), now: day(6)},
		"no schedule":                 {task: with(func(t *store.Task) { t.Schedule = "" }), last: day(1), cron: day(6), now: day(6)},
		"retired":                     {task: with(func(t *store.Task) { t.RetiredAt = day(2) }), last: day(1), cron: day(6), now: day(6)},
		"paused":                      {task: with(func(t *store.Task) { t.PausedAt = day(2) }), last: day(1), cron: day(6), now: day(6)},
		"a pause that ended":          {task: with(func(t *store.Task) { t.PausedAt, t.PausedUntil = day(2), day(3) }), last: day(1), cron: day(6), now: day(6), wantFlag: true},
		"next slot not come, window under a day": {task: with(func(t *store.Task) { t.MaxAge = 12 * time.Hour }),
			last: day(5), cron: day(5).Add(20 * time.Hour), now: day(5).Add(20 * time.Hour)},
		"its slot passed, window under a day": {task: with(func(t *store.Task) { t.MaxAge = 12 * time.Hour }),
			last: day(4), cron: day(5).Add(13 * time.Hour), now: day(5).Add(13 * time.Hour), wantFlag: true},
		"monthly, a week after its fire": {task: with(func(t *store.Task) { t.Schedule, t.MaxAge = "0 2 1 * *", 0 }),
			last: day(1), cron: day(20), now: day(20)},
		"monthly, its slot passed": {task: with(func(t *store.Task) { t.Schedule, t.MaxAge = "0 2 1 * *", 0 }),
			last: day(1), cron: time.Date(2026, 4, 9, 2, 0, 0, 0, time.UTC), now: time.Date(2026, 4, 9, 2, 0, 0, 0, time.UTC), wantFlag: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := &silence{last: map[string]time.Time{"t": tc.last}, cron: tc.cron}
			w := s.warning(tc.task, tc.now, MissedRule{})
			if got := w != ""; got != tc.wantFlag {
				t.Fatalf("warning = %q, want flagged %v", w, tc.wantFlag)
			}
			if tc.wantFlag && !strings.Contains(w, "is its line gone? catchup forget t") {
				t.Errorf("warning %q does not name the fix", w)
			}
		})
	}
}
