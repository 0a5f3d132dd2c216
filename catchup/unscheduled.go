package catchup

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// A task without a schedule (a style-B crontab line, catchup run --task
// NAME -- CMD, whose crontab no scan reads) has no missed slots: no scan
// replays one. Its fires are called a scheduler's when at least
// unscheduledFires of its latest unscheduledWindow fires without a slot
// started at the same minute of the hour, each within the first
// unscheduledSeconds of its minute (cron starts a line in its minute's first
// second; a fire by hand lands there one time in four, at a given minute of
// the hour one time in 240). A task run by hand is not named.
const (
	unscheduledFires   = 2
	unscheduledWindow  = 20
	unscheduledSeconds = 15
)

// Unscheduled tells whether the active task t, which has no schedule, fires
// as from a scheduler (see unscheduledFires); when it does, the warning says
// what is wrong and the fix. Tasks with a schedule or retired are never
// named.
func Unscheduled(ctx context.Context, st store.Store, m Machine, t store.Task) (string, error) {
	if t.Schedule != "" || !t.RetiredAt.IsZero() {
		return "", nil
	}
	runs, err := st.History(ctx, store.HistoryFilter{Task: t.Name, Limit: unscheduledWindow})
	if err != nil {
		return "", err
	}
	at, ok := schedulerMinute(runs)
	if !ok {
		return "", nil
	}
	return fmt.Sprintf("task %s has no schedule, yet its fires come %s as from cron: "+
		"no scan replays its missed slots; fix: give scan its crontab (catchup scan --crontab FILE; "+
		"the catchup-scan unit: CATCHUP_SCAN_ARGS in a drop-in) or write --cron 'SCHEDULE' on its line",
		t.Name, describeMinute(at, m.Zone)), nil
}

// schedulerMinute returns the start of the latest fire of the largest group
// of fires without a slot that share a minute of the hour, each within its
// minute's first seconds, when that group holds at least unscheduledFires.
func schedulerMinute(runs []store.Run) ([]time.Time, bool) {
	groups := map[int][]time.Time{}
	best := -1
	for _, r := range runs {
		if !r.Slot.IsZero() || r.Trigger != store.TriggerManual || r.StartedAt.IsZero() {
			continue
		}
		s := r.StartedAt.UTC()
		if s.Second() >= unscheduledSeconds {
			continue
		}
		groups[s.Minute()] = append(groups[s.Minute()], s)
		if best < 0 || len(groups[s.Minute()]) > len(groups[best]) {
			best = s.Minute()
		}
	}
	if best < 0 || len(groups[best]) < unscheduledFires {
		return nil, false
	}
	return groups[best], true
}

// describeMinute says when the fires come: "at 02:00" when all at the same
// hour of the host's zone, else "at minute 05 of the hour".
func describeMinute(at []time.Time, zone string) string {
	loc := time.UTC
	if l, err := time.LoadLocation(zone); err == nil && zone != "" {
		loc = l
	}
	hours := make([]int, 0, len(at))
	for _, t := range at {
		hours = append(hours, t.In(loc).Hour())
	}
	slices.Sort(hours)
	if hours[0] == hours[len(hours)-1] {
		return "at " + at[0].In(loc).Format("15:04")
	}
	return fmt.Sprintf("at minute %02d of the hour", at[0].Minute())
}

// unscheduledWarnings are scan's warnings of the tasks Unscheduled names,
// of those named (all when none is), but for the lines this scan reads
// (replays): it gives them their schedule.
func unscheduledWarnings(ctx context.Context, st store.Store, m Machine, names []string,
	replays map[string]*shellReplay) ([]string, error) {
	all, err := st.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range all {
		t := s.Task
		if replays[t.Name] != nil || len(names) > 0 && !slices.Contains(names, t.Name) {
			continue
		}
		w, err := Unscheduled(ctx, st, m, t)
		if err != nil {
			return nil, err
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out, nil
}
