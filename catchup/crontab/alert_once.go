package crontab

import (
	"errors"
	"fmt"
)

// errPingAndPingFile refuses --ping with --ping-file: both name the one
// monitor a run pings.
var errPingAndPingFile = errors.New("--ping and --ping-file both name the monitor: give one")

// AlertGivenTwice refuses run's alert flag name (ping, ping-file,
// notify-cmd) given more than once: a run pings one monitor and runs one
// alert command, and a flag given again replaced its first value without
// a word (the first monitor never heard of the run). It names no value: a
// ping URL is a credential.
func AlertGivenTwice(name string) error {
	if name == "notify-cmd" {
		return errors.New("--notify-cmd given more than once: catchup run runs one alert command; fix: keep one --notify-cmd (two alerts: --notify-cmd 'a; b')")
	}
	return fmt.Errorf("--%s given more than once: catchup run pings one monitor; fix: keep one --%s", name, name)
}

// IdentityGivenTwice refuses run's identity flag name (task, cron, tz)
// given more than once: which task a fire stands for, by which schedule
// and zone, and a flag given again replaced its first value without a
// word (`--task a --task b` ran and recorded b).
func IdentityGivenTwice(name string) error {
	what := map[string]string{"task": "a fire stands for one task", "cron": "a task has one schedule", "tz": "a schedule has one zone"}[name]
	return fmt.Errorf("--%s given more than once: %s; fix: keep one --%s", name, what, name)
}

// PingAndPingFile is errPingAndPingFile, for catchup run's own check.
func PingAndPingFile() error { return errPingAndPingFile }

// alertsOnce counts a catchup line's alert and identity flags as
// parseFlags reads them, refusing one given twice, or --ping with
// --ping-file, as catchup run refuses it at every fire (exit 125).
type alertsOnce map[string]bool

func (a alertsOnce) add(name string) error {
	switch name {
	case "task", "cron", "tz":
		if a[name] {
			return IdentityGivenTwice(name)
		}
		a[name] = true
		return nil
	case "ping", "ping-file", "notify-cmd":
	default:
		return nil
	}
	if a[name] {
		return AlertGivenTwice(name)
	}
	a[name] = true
	if a["ping"] && a["ping-file"] {
		return errPingAndPingFile
	}
	return nil
}
