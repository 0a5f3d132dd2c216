package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/schedule"
)

// zone sets req.TZ from --tz, else CRON_TZ (cron puts a crontab's
// CRON_TZ= line in the job's environment), and returns the zone the
// schedule is read in. A zone in any spelling TZ takes (":Europe/Berlin",
// a zone file's path, a POSIX TZ string) is registered by its name. An
// unknown --tz or CRON_TZ is an error (exit 125, nothing runs: cron fires
// the line in a zone catchup cannot read); a --tz that disagrees with
// CRON_TZ is a warning: --tz wins.
func (f *runFlags) zone(req *catchup.RunRequest, getenv func(string) string, stderr io.Writer) (*time.Location, error) {
	req.TZ = schedule.ZoneSpelling(f.tz)
	zone, err := schedule.LoadZone(req.TZ)
	if err != nil {
		return nil, err
	}
	cronTZ := getenv("CRON_TZ")
	var cronZone *time.Location
	if schedule.ZoneSpelling(cronTZ) != "" {
		if cronZone, err = schedule.LoadZone(cronTZ); err != nil {
			return nil, fmt.Errorf("CRON_TZ: %w", err)
		}
	}
	if req.TZ == "" {
		if cronZone == nil {
			return zone, nil // the local zone
		}
		req.TZ = schedule.ZoneSpelling(cronTZ)
		return cronZone, nil
	}
	if cronZone != nil && f.cron != "" && req.ReplaySlot.IsZero() && !schedule.SameZone(req.TZ, cronZone.String()) {
		// cron fires the line in CRON_TZ, and the fire reads its slot in
		// --tz: each fire stands for another slot than the one cron fired
		// (a replay reads the registered schedule, not --tz).
		fmt.Fprintf(stderr, "catchup: --tz %s disagrees with CRON_TZ=%s, the zone cron fires this line in: the schedule is read in %s "+
			"(--tz wins), so a fire stands for a slot other than the one cron fired; drop --tz, or make them agree\n",
			req.TZ, cronZone, req.TZ)
	}
	return zone, nil
}

// zoneFromHost gives a request without --tz or CRON_TZ the zone cron fires
// it in: the one /etc/localtime names, else (a container without it) TZ, as
// scan --crontab reads a line. A crontab's TZ= line reaches the job's
// environment, not cron's schedule. Always a name a later reader can load,
// never "" (which every reader would take as its own).
func zoneFromHost(req *catchup.RunRequest, m catchup.Machine) error {
	if req.TZ != "" || m.Zone == "" { // --tz or CRON_TZ named one (Local names none)
		return nil
	}
	zone := m.Zone
	if m.CronZone != nil {
		if cron := m.CronZone(); !schedule.SameZone(cron, zone) {
			req.ZoneNotTZ, zone = zone, cron
		}
	}
	req.TZ, req.ZoneFromHost = zone, true
	if req.Schedule == nil {
		return nil
	}
	loc, err := schedule.LoadZone(zone)
	if err != nil {
		return err
	}
	req.Schedule, err = schedule.Parse(req.Schedule.Expr(), loc)
	return err
}
