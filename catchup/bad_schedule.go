package catchup

import (
	"fmt"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// badScheduleWarning says that task t's registered schedule no longer
// parses (err): scan cannot look for its slots, and replays none until the
// task is registered again, or forgotten. A day-of-week range from 7 ("7-1")
// that an older catchup took (it read it as 0-1; cronie refuses it) gets
// the same days spelled as cron reads them.
func badScheduleWarning(t store.Task, err error) string {
	return badSchedule(t, err).Error()
}

// errBadSchedule is badScheduleWarning as the error of a command that
// needs the task's slots (explain, backfill): it names the task, so that
// the parser's words are not read as a cron expression typed on the
// command line.
func errBadSchedule(t store.Task, err error) error {
	return fmt.Errorf("task %s: %w", t.Name, badSchedule(t, err))
}

func badSchedule(t store.Task, err error) error {
	fix := "register it again with a valid --cron (its line's next fire does)"
	if s, ok := schedule.SevenRangeRespelled(t.Schedule); ok {
		fix = fmt.Sprintf("register it again with --cron %q on its line, the same days as cron reads them (its next fire does)", s)
	}
	return fmt.Errorf("registered schedule %q cannot be read (%w): its missed slots cannot be looked for, and none is replayed; %s, or catchup forget %s",
		t.Schedule, err, fix, t.Name)
}
