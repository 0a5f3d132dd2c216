package catchup

import (
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/schedule"
)

// lineZoneOf is the zone cron fires line e in: --tz on the line (the
// fire's own reading), else CRON_TZ, else cron's own zone, the host's
// (fromHost; named as the environment names it when it is the same zone:
// UTC for Etc/UTC). Either in any spelling TZ takes (":Europe/Berlin", a
// zone file's path): registered by its name. --tz Local names none.
func lineZoneOf(m Machine, e crontab.Entry) (zone string, fromHost bool) {
	if zone = schedule.ZoneSpelling(e.Zone); zone != "" {
		return zone, false
	}
	if zone = schedule.ZoneSpelling(e.TZ); zone != "" {
		return zone, false
	}
	zone = m.Zone
	if m.CronZone != nil {
		zone = m.CronZone()
	}
	if schedule.SameZone(zone, m.Zone) {
		zone = m.Zone
	}
	return zone, true
}

// checkLineZones refuses a line whose --tz or CRON_TZ names no zone: every
// fire of it exits 125 (as `catchup run` refuses the zone), so scan neither
// registers nor replays it, and says so (exit 1).
func checkLineZones(e crontab.Entry) error {
	if err := e.CheckZones(); err != nil {
		return lineRefusal(err.Error() + "; every fire of the line exits 125, and it is not registered")
	}
	return nil
}
