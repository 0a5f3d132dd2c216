package catchup

// CheckSchedule validates a cron expression and zone as run and scan take
// them ("" expression: no schedule), before anything is opened or written.
func CheckSchedule(expr, tz string) error {
	if _, err := loadZone(tz); err != nil {
		return err
	}
	_, err := parseTaskSchedule(expr, tz)
	return err
}
