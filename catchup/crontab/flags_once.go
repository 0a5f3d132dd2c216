package crontab

import (
	"errors"
	"fmt"
)

// errPingAndPingFile refuses --ping with --ping-file: both name the one
// monitor a run pings.
var errPingAndPingFile = errors.New("--ping and --ping-file both name the monitor: give one")

// GivenTwice refuses run's flag name (without --) given more than once:
// every flag of run takes one value, and a flag given again replaced its
// first value without a word (`--timeout 1h --timeout 1s` killed the job
// after a second; `--task a --task b` ran and recorded b). It names no
// value: a ping URL is a credential. catchup run says it at the fire
// (exit 125), scan and catchup daemon of a crontab line.
func GivenTwice(name string) error {
	switch name {
	case "ping", "ping-file", "notify-cmd":
		return alertGivenTwice(name)
	case "task", "cron", "tz":
		return identityGivenTwice(name)
	}
	return fmt.Errorf("--%s given more than once: catchup run takes one --%s; fix: keep one", name, name)
}

// alertGivenTwice refuses an alert flag (ping, ping-file, notify-cmd)
// given more than once: a run pings one monitor and runs one alert
// command (the first monitor never heard of the run).
func alertGivenTwice(name string) error {
	if name == "notify-cmd" {
		return errors.New("--notify-cmd given more than once: catchup run runs one alert command; fix: keep one --notify-cmd (two alerts: --notify-cmd 'a; b')")
	}
	return fmt.Errorf("--%s given more than once: catchup run pings one monitor; fix: keep one --%s", name, name)
}

// identityGivenTwice refuses an identity flag (task, cron, tz) given more
// than once: which task a fire stands for, by which schedule and zone.
func identityGivenTwice(name string) error {
	what := map[string]string{"task": "a fire stands for one task", "cron": "a task has one schedule", "tz": "a schedule has one zone"}[name]
	return fmt.Errorf("--%s given more than once: %s; fix: keep one --%s", name, what, name)
}

// PingAndPingFile is errPingAndPingFile, for catchup run's own check.
func PingAndPingFile() error { return errPingAndPingFile }

// flagsOnce counts a catchup line's flags as they are read, global flags
// before run included (catchup --db a run --db b gives --db twice),
// refusing one given twice (GivenTwice), or --ping with --ping-file, as
// catchup run refuses it at every fire (exit 125). Its first refusal is
// kept in err.
type flagsOnce struct {
	seen map[string]bool
	err  error
}

func newFlagsOnce() *flagsOnce { return &flagsOnce{seen: map[string]bool{}} }

// add counts flag name, and returns the first refusal so far.
func (o *flagsOnce) add(name string) error {
	switch {
	case o.err != nil:
	case o.seen[name]:
		o.err = GivenTwice(name)
	default:
		o.seen[name] = true
		if o.seen["ping"] && o.seen["ping-file"] {
			o.err = errPingAndPingFile
		}
	}
	return o.err
}
