package catchup

import (
	"slices"
	"strings"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/schedule"
)

// sameJob reports whether two lines naming one task are one job (a
// crontab installed twice): the same schedule and zones by meaning
// (@hourly is 0 * * * *, UTC is Etc/UTC), the same variables, and the same
// command, spacing aside.
func sameJob(f, e crontab.Entry) bool {
	// The variables (CRON_TZ among them) and the command (--tz in it)
	// first: zones as written are then one, and no zone file is read
	// (with root's rights, of another user's line).
	return schedule.SameExpr(f.Expr, e.Expr) && schedule.SameExpr(f.Cron, e.Cron) &&
		slices.Equal(f.Env, e.Env) && slices.Equal(strings.Fields(f.Command), strings.Fields(e.Command)) && f.Stdin == e.Stdin &&
		sameSpelled(f.TZ, e.TZ) && sameSpelled(f.Zone, e.Zone)
}

// sameSpelled reports whether zones a and b, as a line writes them, name
// one zone: written alike, else spelled alike (ZoneSpelling).
func sameSpelled(a, b string) bool {
	return a == b || schedule.SameZone(schedule.ZoneSpelling(a), schedule.ZoneSpelling(b))
}
