package store_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestRunning(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		a := mustClaim(t, s, store.Run{Task: "a", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		b := mustClaim(t, s, store.Run{Task: "b", Trigger: store.TriggerManual, StartedAt: t0})
		c := mustClaim(t, s, store.Run{Task: "c", Trigger: store.TriggerManual, StartedAt: t0})
		finish(t, s, b, store.StatusSucceeded, t0.Add(time.Second))
		running, err := s.Running(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(running), []int64{a, c}; !reflect.DeepEqual(got, want) {
			t.Errorf("Running = %v, want %v", got, want)
		}
	})
}

func TestHistory(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		// 30 runs of "a" alternating succeeded/failed, 5 of "b" still running.
		var aAll, aFailed, bAll []int64
		for i := range 30 {
			at := t0.Add(time.Duration(i) * time.Minute)
			id := mustClaim(t, s, store.Run{Task: "a", Slot: at, Trigger: store.TriggerSchedule, StartedAt: at})
			status := store.StatusSucceeded
			if i%2 == 1 {
				status = store.StatusFailed
				aFailed = append(aFailed, id)
			}
			finish(t, s, id, status, at.Add(time.Second))
			aAll = append(aAll, id)
			if i%6 == 0 {
				bAll = append(bAll, mustClaim(t, s, store.Run{Task: "b", Trigger: store.TriggerManual, StartedAt: at}))
			}
		}
		all := append(append([]int64{}, aAll...), bAll...)
		newest := func(v []int64, n int) []int64 {
			out := slices.Clone(v)
			slices.Sort(out)
			slices.Reverse(out) // newest first
			if n < len(out) {
				out = out[:n]
			}
			return out
		}
		tests := map[string]struct {
			filter store.HistoryFilter
			want   []int64
		}{
			"default limit is 20":     {filter: store.HistoryFilter{}, want: newest(all, 20)},
			"negative limit":          {filter: store.HistoryFilter{Limit: -5}, want: newest(all, 20)},
			"limit 3":                 {filter: store.HistoryFilter{Limit: 3}, want: newest(all, 3)},
			"limit above count":       {filter: store.HistoryFilter{Limit: 1000}, want: newest(all, 1000)},
			"by task":                 {filter: store.HistoryFilter{Task: "a", Limit: 100}, want: newest(aAll, 100)},
			"by task, default limit":  {filter: store.HistoryFilter{Task: "a"}, want: newest(aAll, 20)},
			"by status":               {filter: store.HistoryFilter{Status: store.StatusRunning}, want: newest(bAll, 20)},
			"by task and status":      {filter: store.HistoryFilter{Task: "a", Status: store.StatusFailed, Limit: 4}, want: newest(aFailed, 4)},
			"task with other status":  {filter: store.HistoryFilter{Task: "b", Status: store.StatusFailed}, want: nil},
			"unknown task":            {filter: store.HistoryFilter{Task: "zzz"}, want: nil},
			"unknown status":          {filter: store.HistoryFilter{Status: "exploded"}, want: nil},
			"task name is exact":      {filter: store.HistoryFilter{Task: "A"}, want: nil},
			"by status, small limit":  {filter: store.HistoryFilter{Status: store.StatusSucceeded, Limit: 2}, want: newest(difference(aAll, aFailed), 2)},
			"by task b, all statuses": {filter: store.HistoryFilter{Task: "b"}, want: newest(bAll, 20)},
			"since":                   {filter: store.HistoryFilter{Since: t0.Add(25 * time.Minute)}, want: newest(aAll[25:], 20)},
			"since is inclusive":      {filter: store.HistoryFilter{Task: "b", Since: t0.Add(24 * time.Minute)}, want: newest(bAll[4:], 20)},
			"since and limit":         {filter: store.HistoryFilter{Since: t0.Add(20 * time.Minute), Limit: 2}, want: newest(aAll[20:], 2)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				got, err := s.History(t.Context(), tc.filter)
				if err != nil {
					t.Fatal(err)
				}
				if g := ids(got); !slices.Equal(g, tc.want) {
					t.Errorf("History(%+v) = %v, want %v", tc.filter, g, tc.want)
				}
				for _, r := range got {
					if tc.filter.Task != "" && r.Task != tc.filter.Task || tc.filter.Status != "" && r.Status != tc.filter.Status {
						t.Errorf("History(%+v) returned %+v", tc.filter, r)
					}
				}
			})
		}
	})
}

func difference(a, b []int64) []int64 {
	drop := map[int64]bool{}
	for _, x := range b {
		drop[x] = true
	}
	var out []int64
	for _, x := range a {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

func TestSlotRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		from, to := t0, t0.Add(time.Hour)
		const grace = 10 * time.Minute
		type rec struct {
			slot    time.Time // zero: slotless
			started time.Time
			task    string
			in      bool
		}
		recs := map[string]rec{
			"slot at from":                    {slot: from, started: from.Add(time.Second), in: true},
			"slot at to":                      {slot: to, started: to.Add(time.Second), in: true},
			"slot inside":                     {slot: from.Add(30 * time.Minute), started: from.Add(30 * time.Minute), in: true},
			"slot inside, started long after": {slot: from.Add(5 * time.Minute), started: to.Add(24 * time.Hour), in: true},
			"slot a second before from":       {slot: from.Add(-time.Second), started: from},
			"slot a second after to":          {slot: to.Add(time.Second), started: to.Add(time.Second)},
			"slot inside, other task":         {slot: from.Add(time.Minute), started: from.Add(time.Minute), task: "other"},
			"slotless at from":                {started: from, in: true},
			"slotless inside":                 {started: from.Add(20 * time.Minute), in: true},
			"slotless within grace":           {started: to.Add(grace - time.Millisecond), in: true},
			"slotless at to+grace":            {started: to.Add(grace), in: true},
			"slotless just after grace":       {started: to.Add(grace + time.Millisecond)},
			"slotless just before from":       {started: from.Add(-time.Millisecond)},
			"slotless inside, other task":     {started: from.Add(time.Minute), task: "other"},
		}
		wantIn := map[int64]string{}
		var wantSlotted, wantSlotless []int64
		// Insert in an order unrelated to slots and starts, to check ordering.
		for _, name := range []string{
			"slotless within grace", "slot at to", "slotless inside, other task", "slot inside, started long after",
			"slotless at from", "slot a second before from", "slot inside", "slotless just after grace",
			"slot at from", "slotless at to+grace", "slot a second after to", "slotless inside",
			"slot inside, other task", "slotless just before from",
		} {
			r := recs[name]
			task := "backup"
			if r.task != "" {
				task = r.task
			}
			id, err := s.AddRun(ctx, store.Run{Task: task, Slot: r.slot, Trigger: store.TriggerManual,
				Status: store.StatusSucceeded, StartedAt: r.started, EndedAt: r.started.Add(time.Second),
				StdoutTail: []byte("tail")})
			if err != nil {
				t.Fatal(err)
			}
			if r.in {
				wantIn[id] = name
			}
		}
		if len(wantIn) != 8 {
			t.Fatalf("test table: %d runs in, want 8", len(wantIn))
		}
		got, err := s.SlotRuns(ctx, "backup", from, to, grace)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, r := range got {
			if _, ok := wantIn[r.ID]; !ok {
				t.Errorf("SlotRuns returned run %d (%+v), not in range", r.ID, r)
			}
			seen[r.ID] = true
			if r.StdoutTail != nil {
				t.Errorf("SlotRuns loaded the tail of run %d", r.ID)
			}
			if r.Slot.IsZero() {
				wantSlotless = append(wantSlotless, r.ID)
			} else {
				wantSlotted = append(wantSlotted, r.ID)
			}
		}
		for id, name := range wantIn {
			if !seen[id] {
				t.Errorf("SlotRuns missed %q (run %d)", name, id)
			}
		}
		// Oldest first: slotted runs by slot, then slotless runs by start.
		var prev time.Time
		for i, r := range got {
			key := r.Slot
			if r.Slot.IsZero() {
				key = r.StartedAt
				if i > 0 && !got[i-1].Slot.IsZero() {
					prev = time.Time{}
				}
			}
			if key.Before(prev) {
				t.Errorf("SlotRuns not oldest first at run %d: %v after %v", r.ID, key, prev)
			}
			prev = key
		}

		t.Run("empty range", func(t *testing.T) {
			got, err := s.SlotRuns(ctx, "backup", t0.Add(-48*time.Hour), t0.Add(-47*time.Hour), 0)
			if err != nil || len(got) != 0 {
				t.Errorf("SlotRuns = %v, %v; want none", ids(got), err)
			}
		})
		t.Run("unknown task", func(t *testing.T) {
			got, err := s.SlotRuns(ctx, "nope", from, to, grace)
			if err != nil || len(got) != 0 {
				t.Errorf("SlotRuns = %v, %v; want none", ids(got), err)
			}
		})
	})
}

func TestLatestSlotAndEarliestRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		if err := s.UpsertTask(ctx, store.Task{Name: "never", RegisteredAt: t0}); err != nil {
			t.Fatal(err)
		}
		// "busy": slots out of order, and a slotless run first.
		first := t0.Add(-time.Hour + 250*time.Millisecond)
		mustClaim(t, s, store.Run{Task: "busy", Trigger: store.TriggerManual, StartedAt: first})
		for _, h := range []int{3, 7, 5} {
			at := t0.Add(time.Duration(h) * time.Hour)
			mustClaim(t, s, store.Run{Task: "busy", Slot: at, Trigger: store.TriggerSchedule, StartedAt: at})
		}
		mustClaim(t, s, store.Run{Task: "busy", Trigger: store.TriggerManual, StartedAt: t0.Add(48 * time.Hour)})
		// "slotless": runs, but never for a slot.
		mustClaim(t, s, store.Run{Task: "slotless", Trigger: store.TriggerManual, StartedAt: t0})
		// "skipped": only a skip record.
		if _, err := s.AddRun(ctx, store.Run{Task: "skipped", Slot: t0.Add(time.Hour), Trigger: store.TriggerSchedule,
			Status: store.StatusSkipped, StartedAt: t0.Add(2 * time.Hour), EndedAt: t0.Add(2 * time.Hour)}); err != nil {
			t.Fatal(err)
		}

		tests := map[string]struct {
			latestSlot, earliest time.Time
		}{
			"never":    {},
			"unknown":  {},
			"busy":     {latestSlot: t0.Add(7 * time.Hour), earliest: first},
			"slotless": {earliest: t0},
			"skipped":  {latestSlot: t0.Add(time.Hour), earliest: t0.Add(2 * time.Hour)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				ls, err := s.LatestSlot(ctx, name)
				if err != nil {
					t.Fatalf("LatestSlot: %v", err)
				}
				if !ls.Equal(tc.latestSlot) || ls.IsZero() != tc.latestSlot.IsZero() {
					t.Errorf("LatestSlot = %v, want %v", ls, tc.latestSlot)
				}
				if !ls.IsZero() && ls.Location() != time.UTC {
					t.Errorf("LatestSlot location %v, want UTC", ls.Location())
				}
				er, err := s.EarliestRun(ctx, name)
				if err != nil {
					t.Fatalf("EarliestRun: %v", err)
				}
				if !er.Equal(tc.earliest) || er.IsZero() != tc.earliest.IsZero() {
					t.Errorf("EarliestRun = %v, want %v", er, tc.earliest)
				}
			})
		}
	})
}

// Times come back in UTC whatever zone they went in with.
func TestTimesComeBackUTC(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		zone := time.FixedZone("UTC+5:30", 5*3600+1800)
		slot := t0.In(zone)
		id := mustClaim(t, s, store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot.Add(time.Second)})
		if err := s.Finish(t.Context(), id, store.Outcome{Status: store.StatusSucceeded, EndedAt: slot.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		r := getRun(t, s, id)
		for name, v := range map[string]time.Time{"Slot": r.Slot, "StartedAt": r.StartedAt, "EndedAt": r.EndedAt} {
			if v.Location() != time.UTC {
				t.Errorf("%s in %v, want UTC", name, v.Location())
			}
		}
		if !r.Slot.Equal(t0) || !r.StartedAt.Equal(t0.Add(time.Second)) || !r.EndedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("times = %v %v %v", r.Slot, r.StartedAt, r.EndedAt)
		}
	})
}

// TestSlotRunsSubSecondFrom: slots are whole seconds; a lower bound with a
// fraction (a watermark set from now - tolerance) excludes the slot at the
// whole second below it.
func TestSlotRunsSubSecondFrom(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		mustClaim(t, s, store.Run{Task: "x", Slot: t0, Trigger: store.TriggerSchedule, StartedAt: t0})
		next := mustClaim(t, s, store.Run{Task: "x", Slot: t0.Add(time.Second), Trigger: store.TriggerSchedule, StartedAt: t0})
		got, err := s.SlotRuns(t.Context(), "x", t0.Add(250*time.Millisecond), t0.Add(time.Hour), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != next {
			t.Errorf("SlotRuns from %v returned %v, want only the run of the slot a second later", t0.Add(250*time.Millisecond), ids(got))
		}
	})
}
