package catchup

import (
	"github.com/catchup/catchup/catchup/schedule"
)

// parseSchedule reads a schedule as the ledger or a crontab line holds it:
// expr in the zone named tz. An empty expr is no schedule.
func parseSchedule(expr, tz string) (*schedule.Schedule, error) {
	if expr == "" {
		return nil, nil
	}
	loc, err := schedule.LoadZone(tz)
	if err != nil {
		return nil, err
	}
	return schedule.Parse(expr, loc)
}

// parseCrontabSchedule reads a crontab line's time fields, which cron
// reads, in the zone named tz: as parseSchedule, refusing what cron does
// not take (schedule.ParseCrontab).
func parseCrontabSchedule(expr, tz string) (*schedule.Schedule, error) {
	loc, err := schedule.LoadZone(tz)
	if err != nil {
		return nil, err
	}
	return schedule.ParseCrontab(expr, loc)
}
