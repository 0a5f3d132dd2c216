package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// watermark returns the SettledThrough of task.
func watermark(t testing.TB, s store.Store, task string) time.Time {
	t.Helper()
	got, err := s.Task(t.Context(), task)
	if err != nil {
		t.Fatalf("Task(%s): %v", task, err)
	}
	return got.SettledThrough
}

func upsert(t testing.TB, s store.Store, task store.Task) {
	t.Helper()
	if err := s.UpsertTask(t.Context(), task); err != nil {
		t.Fatalf("UpsertTask(%s): %v", task.Name, err)
	}
}

func TestSettledThroughUpsert(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		base := store.Task{Name: "backup", Schedule: "0 * * * *", TZ: "UTC", Source: "run", RegisteredAt: t0, UpdatedAt: t0}
		with := func(f func(*store.Task)) store.Task {
			task := base
			f(&task)
			return task
		}
		w0 := t0.Add(123 * time.Millisecond)
		tests := map[string]struct {
			upserts []store.Task
			want    time.Time
		}{
			"insert stores it": {upserts: []store.Task{with(func(x *store.Task) { x.SettledThrough = w0 })}, want: w0},
			"insert of none":   {upserts: []store.Task{base}},
			"update keeps it": {upserts: []store.Task{
				with(func(x *store.Task) { x.SettledThrough = w0 }),
				with(func(x *store.Task) { x.SettledThrough = t0.Add(time.Hour); x.Argv = []string{"new"} }),
			}, want: w0},
			"update keeps it, later or earlier": {upserts: []store.Task{
				with(func(x *store.Task) { x.SettledThrough = w0 }),
				with(func(x *store.Task) { x.SettledThrough = t0.Add(-time.Hour) }),
				with(func(x *store.Task) { x.SettledThrough = time.Time{} }),
			}, want: w0},
			"update keeps none": {upserts: []store.Task{
				base, with(func(x *store.Task) { x.SettledThrough = t0.Add(time.Hour) }),
			}},
			"new schedule resets it": {upserts: []store.Task{
				with(func(x *store.Task) { x.SettledThrough = w0 }),
				with(func(x *store.Task) { x.Schedule, x.SettledThrough = "30 * * * *", t0.Add(time.Hour) }),
			}, want: t0.Add(time.Hour)},
			"new zone resets it": {upserts: []store.Task{
				with(func(x *store.Task) { x.SettledThrough = w0 }),
				with(func(x *store.Task) { x.TZ, x.SettledThrough = "Europe/Paris", t0.Add(-time.Hour) }),
			}, want: t0.Add(-time.Hour)},
			"schedule dropped resets it to what is given": {upserts: []store.Task{
				with(func(x *store.Task) { x.SettledThrough = w0 }),
				with(func(x *store.Task) { x.Schedule, x.SettledThrough = "", time.Time{} }),
			}},
			"crontab task is not re-registered by run": {upserts: []store.Task{
				with(func(x *store.Task) { x.Source, x.SettledThrough = "crontab:/etc/crontab:3", w0 }),
				with(func(x *store.Task) { x.Schedule, x.SettledThrough = "5 * * * *", t0.Add(time.Hour) }),
			}, want: w0},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				for _, task := range tc.upserts {
					upsert(t, s, task)
				}
				if got := watermark(t, s, "backup"); !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
					t.Errorf("SettledThrough = %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("claim with Register follows the same rule", func(t *testing.T) {
			s := be.fresh(t)
			upsert(t, s, with(func(x *store.Task) { x.SettledThrough = w0 }))
			reg := with(func(x *store.Task) { x.SettledThrough = t0.Add(time.Hour) })
			claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0}, Register: &reg})
			if got := watermark(t, s, "backup"); !got.Equal(w0) {
				t.Errorf("SettledThrough = %v, want %v kept", got, w0)
			}
		})
	})
}

func TestSetSettled(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		w := t0                          // the watermark before
		through := t0.Add(2 * time.Hour) // asked for
		type prior struct {
			task   string // "" is backup
			slot   time.Time
			status string // "" leaves it running
			code   *int   // a skip's exit code (nil: none, a policy's skip or a fold)
			reason string // a record's reason code
		}
		exit := func(c int) *int { return &c }
		tests := map[string]struct {
			from  time.Time // the watermark before; zero: none
			prior []prior
			to    time.Time
			want  time.Time
		}{
			"advances":                       {from: w, to: through, want: through},
			"advances from none":             {to: through, want: through},
			"never moves back":               {from: w, to: w.Add(-time.Hour), want: w},
			"same value":                     {from: w, to: w, want: w},
			"zero is no move":                {from: w, want: w},
			"running run in range":           {from: w, prior: []prior{{slot: w.Add(time.Hour)}}, to: through, want: w},
			"interrupted run in range":       {from: w, prior: []prior{{slot: w.Add(time.Hour), status: store.StatusInterrupted}}, to: through, want: w},
			"running run at through":         {from: w, prior: []prior{{slot: through}}, to: through, want: w},
			"running run a second after w":   {from: w, prior: []prior{{slot: w.Add(time.Second)}}, to: through, want: w},
			"running run at the watermark":   {from: w, prior: []prior{{slot: w}}, to: through, want: through},
			"running run after through":      {from: w, prior: []prior{{slot: through.Add(time.Second)}}, to: through, want: through},
			"interrupted run before w":       {from: w, prior: []prior{{slot: w.Add(-time.Hour), status: store.StatusInterrupted}}, to: through, want: through},
			"running run of none's past":     {prior: []prior{{slot: t0.Add(-100 * time.Hour)}}, to: through},
			"running run of another task":    {from: w, prior: []prior{{task: "other", slot: w.Add(time.Hour)}}, to: through, want: through},
			"running run without a slot":     {from: w, prior: []prior{{}}, to: through, want: through},
			"sub-second watermark and slot":  {from: w.Add(500 * time.Millisecond), prior: []prior{{slot: w}}, to: through, want: through},
			"sub-second through excludes it": {from: w, prior: []prior{{slot: through.Add(time.Second)}}, to: through.Add(999 * time.Millisecond), want: through.Add(999 * time.Millisecond)},
			"interrupted run replayed since": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
				{slot: w.Add(time.Hour), status: store.StatusSucceeded},
			}, to: through, want: through},
			"interrupted again after a replay": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusSucceeded},
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
			}, to: through, want: w},
			// A record that settles the slot, after its interrupted run: the
			// slot is done, and the watermark may pass it (before, only a
			// success, failure, timeout or expiry did, so a fold or a pause
			// pinned the watermark below the dead run for good).
			"interrupted run folded since": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
				{slot: w.Add(time.Hour), status: store.StatusSkipped},
			}, to: through, want: through},
			"interrupted run paused since": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
				{slot: w.Add(time.Hour), status: store.StatusPaused},
			}, to: through, want: through},
			// Records that settle nothing: a lock skip, a duplicate fire, a
			// fold given back, a paused record given back by resume.
			"interrupted run lock-skipped since": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
				{slot: w.Add(time.Hour), status: store.StatusSkipped, code: exit(75)},
			}, to: through, want: w},
			"interrupted run, a duplicate since": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
				{slot: w.Add(time.Hour), status: store.StatusSkipped, code: exit(0)},
			}, to: through, want: w},
			"interrupted run, paused and given back since": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusInterrupted},
				{slot: w.Add(time.Hour), status: store.StatusPaused, reason: store.ReasonReplayPaused},
			}, to: through, want: w},
			"finished runs do not block": {from: w, prior: []prior{
				{slot: w.Add(time.Hour), status: store.StatusFailed},
				{slot: w.Add(time.Hour), status: store.StatusTimeout},
				{slot: w.Add(time.Hour), status: store.StatusSucceeded},
				{slot: w.Add(90 * time.Minute), status: store.StatusSkipped},
			}, to: through, want: through},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				upsert(t, s, store.Task{Name: "backup", Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0, SettledThrough: tc.from})
				for _, p := range tc.prior {
					task := p.task
					if task == "" {
						task = "backup"
					}
					r := store.Run{Task: task, Slot: p.slot, Trigger: store.TriggerSchedule, StartedAt: t0, EndedAt: t0.Add(time.Second)}
					if p.status == store.StatusSkipped || p.status == store.StatusPaused {
						r.Status, r.ExitCode, r.Reason = p.status, p.code, p.reason
						if _, err := s.AddRun(ctx, r); err != nil {
							t.Fatal(err)
						}
						continue
					}
					id := claim(t, s, store.ClaimRequest{Run: r, Force: true}).Run.ID
					if p.status != "" {
						finish(t, s, id, p.status, t0.Add(time.Second))
					}
				}
				if err := s.SetSettled(ctx, "backup", tc.to); err != nil {
					t.Fatalf("SetSettled: %v", err)
				}
				if got := watermark(t, s, "backup"); !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
					t.Errorf("SettledThrough = %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("unknown task", func(t *testing.T) {
			s := be.fresh(t)
			for _, at := range []time.Time{through, {}} {
				if err := s.SetSettled(t.Context(), "nope", at); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("SetSettled(nope, %v) error %v, want ErrNotFound", at, err)
				}
			}
		})
	})
}

func TestInterruptLowersSettled(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		slot := t0.Add(time.Hour)
		tests := map[string]struct {
			w        time.Time // the watermark when the run is interrupted
			slotless bool
			finished bool // the run ended before the Interrupt
			want     time.Time
		}{
			"watermark after the slot":  {w: slot.Add(time.Hour), want: slot.Add(-time.Second)},
			"watermark at the slot":     {w: slot, want: slot.Add(-time.Second)},
			"watermark before the slot": {w: slot.Add(-time.Minute), want: slot.Add(-time.Minute)},
			"no watermark":              {},
			"run without a slot":        {w: slot.Add(time.Hour), slotless: true, want: slot.Add(time.Hour)},
			"run no longer running":     {w: slot.Add(time.Hour), finished: true, want: slot.Add(time.Hour)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				ctx := t.Context()
				task := store.Task{Name: "backup", Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0}
				other := store.Task{Name: "other", Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0, SettledThrough: slot.Add(time.Hour)}
				upsert(t, s, task)
				upsert(t, s, other)
				r := store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot}
				if tc.slotless {
					r.Slot = time.Time{}
				}
				id := mustClaim(t, s, r)
				mustClaim(t, s, store.Run{Task: "other", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot})
				if tc.finished {
					finish(t, s, id, store.StatusFailed, slot.Add(time.Minute))
				}
				// A task registered anew after its retirement moves the
				// watermark anywhere, past a running run too.
				if _, err := s.Forget(ctx, "backup", slot, false); err != nil {
					t.Fatal(err)
				}
				task.SettledThrough = tc.w
				upsert(t, s, task)
				if got := watermark(t, s, "backup"); !got.Equal(tc.w) {
					t.Fatalf("set-up: SettledThrough = %v, want %v", got, tc.w)
				}
				changed, err := s.Interrupt(ctx, id, slot.Add(time.Minute), "host rebooted")
				if err != nil || changed == tc.finished {
					t.Fatalf("Interrupt = %v, %v", changed, err)
				}
				if got := watermark(t, s, "backup"); !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
					t.Errorf("SettledThrough = %v, want %v", got, tc.want)
				}
				if got := watermark(t, s, "other"); !got.Equal(other.SettledThrough) {
					t.Errorf("other task's SettledThrough = %v, want %v untouched", got, other.SettledThrough)
				}
				// The interrupted run now holds the watermark back.
				if !tc.slotless && !tc.finished {
					if err := s.SetSettled(ctx, "backup", slot.Add(24*time.Hour)); err != nil {
						t.Fatal(err)
					}
					if got := watermark(t, s, "backup"); !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
						t.Errorf("after SetSettled past the interrupted run: SettledThrough = %v, want %v", got, tc.want)
					}
				}
			})
		}
	})
}

// SetSettled and Interrupt race, each from a ledger handle of its own (a
// process each): whoever goes first, the interrupted slot ends up unsettled.
func TestSetSettledInterruptRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		const rounds = 40
		location := be.ledger(t)
		a, b := be.open(t, location), be.open(t, location)
		ctx := t.Context()
		for i := range rounds {
			slot := t0.Add(time.Duration(i) * time.Hour)
			name := "task"
			upsert(t, a, store.Task{Name: name, Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0})
			id := mustClaim(t, a, store.Run{Task: name, Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot})
			// The watermark is past the running slot (the task retired and
			// registered anew), so SetSettled alone would move it on.
			if _, err := a.Forget(ctx, name, slot, false); err != nil {
				t.Fatal(err)
			}
			upsert(t, a, store.Task{Name: name, Schedule: "@hourly", RegisteredAt: t0, UpdatedAt: t0,
				SettledThrough: slot.Add(time.Minute)})
			var wg sync.WaitGroup
			var ierr, serr error
			wg.Go(func() { _, ierr = a.Interrupt(ctx, id, slot.Add(time.Second), "race") })
			wg.Go(func() { serr = b.SetSettled(ctx, name, slot.Add(time.Hour-time.Second)) })
			wg.Wait()
			if ierr != nil || serr != nil {
				t.Fatalf("round %d: Interrupt: %v; SetSettled: %v", i, ierr, serr)
			}
			if got, want := watermark(t, a, name), slot.Add(-time.Second); !got.Equal(want) {
				t.Fatalf("round %d: SettledThrough = %v, want %v (the interrupted slot unsettled)", i, got, want)
			}
		}
	})
}
