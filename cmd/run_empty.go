package cmd

import (
	"errors"
	"strings"
)

// emptyGiven refuses a run flag given empty ("--ping $URL" with URL unset),
// never read as not given: the alert would be silently dropped (or, for
// --ping, CATCHUP_PING_URL's monitor pinged instead), and an empty
// --on-busy stored the default. --cron and --tz are refused in request. A
// --notify-cmd of blanks only is no command either: sh -c ' ' alerts no one.
func (f *runFlags) emptyGiven() error {
	for _, v := range []struct {
		given bool
		val   string
		err   error
	}{
		{f.pingGiven, f.ping, errors.New("--ping is empty: give the monitor's URL, or drop --ping (CATCHUP_PING_URL, else no monitor)")},
		{f.pingFileGiven, f.pingFile, errors.New("--ping-file is empty: name the file holding the monitor's URL, or drop --ping-file")},
		{f.notifyCmdGiven, f.notifyCmd, errors.New("--notify-cmd is empty: give the command to run on failure, or drop --notify-cmd for no alert")},
		{f.onBusyGiven, f.onBusy, errors.New("--on-busy is empty: use replay, skip or wait, or drop --on-busy for replay")},
	} {
		if v.given && v.val == "" {
			return v.err
		}
	}
	if f.notifyCmdGiven && strings.TrimSpace(f.notifyCmd) == "" {
		return errors.New("--notify-cmd is blank: give the command to run on failure, or drop --notify-cmd for no alert")
	}
	return nil
}
