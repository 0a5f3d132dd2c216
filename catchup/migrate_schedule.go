package catchup

import (
	"context"
	"errors"
	"fmt"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/store"
)

// ownSchedule reports whether migrate carries task t's definition: not
// when the shared ledger holds the task under another schedule or zone and
// runs of it from elsewhere (its own hosts', another host's import). There
// the fleet runs it on its own schedule; carried (the newer definition
// wins), this host's would change it without a schedule change: the
// fleet's missed slots gone from every reader, none recorded expired, no
// alert. Its runs still go over; the shared definition stands, and migrate
// says so. A task without a schedule on either side goes over as before.
func ownSchedule(ctx context.Context, m Machine, mg Migration, origin string, t store.Task) (bool, error) {
	if t.Schedule == "" {
		return true, nil
	}
	shared, err := mg.To.Task(ctx, t.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("read %s: %w", mg.ToWhere, err)
	case shared.Schedule == "" || schedule.SameExpr(shared.Schedule, t.Schedule) && schedule.SameZone(shared.TZ, t.TZ):
		return true, nil
	}
	elsewhere, err := mg.To.RunsElsewhere(ctx, t.Name, origin, m.Host)
	if err != nil || !elsewhere {
		return true, err
	}
	m.notice("task %s: its schedule on this host, %q in %s, is not carried to %s, where other hosts run it as %q in %s "+
		"(its runs are copied): the next fire of the line meant for them all registers it there, as a schedule change "+
		"(the old one's missed slots recorded expired)",
		t.Name, t.Schedule, zoneOrLocal(t.TZ), mg.ToWhere, shared.Schedule, zoneOrLocal(shared.TZ))
	return false, nil
}

// zoneOrLocal is a registered zone as a message names it.
func zoneOrLocal(tz string) string {
	if tz == "" {
		return "the local zone"
	}
	return tz
}
