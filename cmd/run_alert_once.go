package cmd

import "github.com/catchup/catchup/catchup/crontab"

// countedString is a givenString that also counts how often it was given:
// run's alert flags (--ping, --ping-file, --notify-cmd) are refused when
// given twice (alertsOnce), where a plain string flag kept its last value
// and the first monitor or alert was dropped without a word.
type countedString struct {
	givenString
	times *int
}

func (v countedString) Set(s string) error {
	*v.times++
	return v.givenString.Set(s)
}

// alertsOnce refuses an alert flag given more than once, and --ping with
// --ping-file, and an identity flag (--task, --cron, --tz) given more than
// once, as scan and catchup daemon refuse such a crontab line. No value is
// named: a ping URL is a credential.
func (f *runFlags) alertsOnce() error {
	for _, v := range []struct {
		name  string
		times int
	}{{"ping", f.pingTimes}, {"ping-file", f.pingFileTimes}, {"notify-cmd", f.notifyCmdTimes}} {
		if v.times > 1 {
			return crontab.AlertGivenTwice(v.name)
		}
	}
	if f.pingGiven && f.pingFileGiven {
		return crontab.PingAndPingFile()
	}
	for _, v := range []struct {
		name  string
		times int
	}{{"task", f.taskTimes}, {"cron", f.cronTimes}, {"tz", f.tzTimes}} {
		if v.times > 1 {
			return crontab.IdentityGivenTwice(v.name)
		}
	}
	return nil
}
