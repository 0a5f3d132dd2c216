package catchup

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/catchup/taskname"
)

// checkLine refuses a crontab line scan cannot register or replay as cron
// fires it: a zone that names none, a schedule or --cron that does not
// parse (or never fires) in zone, time fields cron refuses (gronx's L, W,
// # and ?, a step after a single value: schedule.ParseCrontab), a bad
// --max-age, --replay or --on-busy.
// Each is a refused line (ErrLineRefused): scan says so and exits 1, at
// every scan that reads the line, a plain scan re-reading it too. It
// returns the line's --max-age.
func checkLine(e crontab.Entry, zone string) (time.Duration, error) {
	if err := checkRegisteredValues(e); err != nil {
		return 0, err
	}
	if err := checkLineZones(e); err != nil {
		return 0, err
	}
	if _, err := parseCrontabSchedule(e.Expr, zone); err != nil {
		return 0, lineRefusal(err.Error()) // (what cron refuses: it never fires the line, no slots)
	}
	var maxAge time.Duration
	if e.MaxAge != "" {
		d, err := ParseDuration(e.MaxAge)
		if errors.Is(err, ErrDurationTooLong) {
			return 0, lineRefusal(fmt.Sprintf("--max-age %s: %v", taskname.Quoted(redact.Value(e.MaxAge)), ErrDurationTooLong))
		}
		if err != nil || d <= 0 {
			return 0, lineRefusal(fmt.Sprintf("--max-age %s: want a positive duration, like 3d", taskname.Quoted(redact.Value(e.MaxAge))))
		}
		maxAge = d
	}
	if e.Cron != "" {
		// The line's own `catchup run --cron` refuses an invalid one at
		// every fire (exit 125): a malformed line, never registered.
		if _, err := parseSchedule(e.Cron, zone); err != nil {
			return 0, lineRefusal(fmt.Sprintf("--cron %s: %v", taskname.QuotedUpTo(redact.Value(e.Cron), 128), err))
		}
	}
	if e.Replay != "" {
		if err := CheckPolicy(e.Replay); err != nil {
			return 0, lineRefusal(err.Error())
		}
	}
	switch e.OnBusy {
	case "", "replay", "skip", "wait":
	default:
		return 0, lineRefusal(fmt.Sprintf("invalid --on-busy %s: use replay, skip or wait", taskname.Quoted(redact.Value(e.OnBusy))))
	}
	return maxAge, nil
}

// firedZone is the zone cron fires line e in, as far as the line tells:
// its --tz, else its CRON_TZ, else def.
func firedZone(e crontab.Entry, def string) string {
	for _, z := range []string{e.Zone, e.TZ} {
		if s := schedule.ZoneSpelling(z); s != "" {
			return s
		}
	}
	return def
}

// checkRegisteredValues refuses a line whose --cron, --tz, --max-age,
// --replay or --on-busy is a shell reference ($VAR, `...`): scan registers
// these values and reads the line's slots by them, without the shell that
// would expand them when cron fires the line. (A --timeout or --retries
// so written is the fire's own: left to it.)
func checkRegisteredValues(e crontab.Entry) error {
	for _, f := range []struct{ name, val string }{
		{"--cron", e.Cron}, {"--tz", e.Zone}, {"--max-age", e.MaxAge}, {"--replay", e.Replay}, {"--on-busy", e.OnBusy},
	} {
		if strings.ContainsAny(f.val, "$`") {
			return lineRefusal(fmt.Sprintf("%s %q: scan registers this value and cannot expand the shell's variables in it; write the value out", f.name, f.val))
		}
	}
	return nil
}
