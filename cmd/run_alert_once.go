package cmd

import "github.com/catchup/catchup/catchup/crontab"

// onceFlags are run's flags refused when given more than once (alertsOnce;
// countSets counts them): its alerts (--ping, --ping-file, --notify-cmd),
// where a string flag kept its last value and the first monitor or alert
// was dropped without a word, and its identity (--task, --cron, --tz),
// where `--task a --task b` ran and recorded b.
var onceFlags = []string{"ping", "ping-file", "notify-cmd", "task", "cron", "tz"}

// alertsOnce refuses an alert flag given more than once, and --ping with
// --ping-file, and an identity flag (--task, --cron, --tz) given more than
// once, as scan and catchup daemon refuse such a crontab line. No value is
// named: a ping URL is a credential.
func (f *runFlags) alertsOnce() error {
	for _, name := range []string{"ping", "ping-file", "notify-cmd"} {
		if *f.times[name] > 1 {
			return crontab.AlertGivenTwice(name)
		}
	}
	if f.pingGiven && f.pingFileGiven {
		return crontab.PingAndPingFile()
	}
	for _, name := range []string{"task", "cron", "tz"} {
		if *f.times[name] > 1 {
			return crontab.IdentityGivenTwice(name)
		}
	}
	return nil
}
