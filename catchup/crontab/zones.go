package crontab

import (
	"fmt"

	"github.com/catchup/catchup/catchup/schedule"
)

// CheckZones refuses a line whose --tz or CRON_TZ names no zone (neither a
// tz database name nor a POSIX TZ string): every fire of it exits 125.
func (e Entry) CheckZones() error {
	for _, z := range []struct{ what, name string }{{"--tz", e.Zone}, {"CRON_TZ", e.TZ}} {
		if _, err := schedule.LoadZone(z.name); err != nil {
			return fmt.Errorf("%s: %w", z.what, err)
		}
	}
	return nil
}
