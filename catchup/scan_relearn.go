package catchup

// A plain scan learns an edited crontab line before it replays it
// (docs/slots.md, "A crontab line edited between scans").

import (
	"context"

	"github.com/catchup/catchup/store"
)

// lineReplay re-reads the line of task t, registered from a crontab, for a
// scan not given that crontab, and returns the task as the scan is to read
// it and the way to replay it. When the line's schedule or zone, as cron
// reads it, is no longer t's, the line is registered as scan --crontab
// registers it (registerEntry, unless dry: the warning of the change, the
// watermark at now), and its missed slots are the new registration's: the
// line never runs for a slot of the schedule it no longer has. err, with
// the warning beside it, is a registration that failed: the task is not
// scanned. A line that cannot be found or read leaves the shellReplay
// saying so (gone: scan retires the task), never another line's command.
func (c *crontabs) lineReplay(ctx context.Context, st store.Store, t store.Task, dry bool) (store.Task, *shellReplay, string, error) {
	se, sr := c.findLine(t)
	if sr != nil {
		return t, sr, "", nil
	}
	sr, _, err := registerEntry(ctx, st, c.m, se, true)
	if err != nil || (sr.task.Schedule == t.Schedule && sr.task.TZ == t.TZ) {
		// Unchanged, or refused as registered: replayed, or refused, as
		// the registration reads it.
		return t, c.registeredReplay(t, se), "", nil
	}
	sr, warning, err := registerEntry(ctx, st, c.m, se, dry)
	if err != nil {
		return t, nil, warning, err
	}
	nt := sr.task
	if !dry {
		if nt, err = st.Task(ctx, t.Name); err != nil {
			return t, nil, warning, err
		}
	} else {
		nt.PausedAt, nt.PausedUntil = t.PausedAt, t.PausedUntil
	}
	return nt, sr, warning, nil
}

// lineChanged reports whether the line of task t, registered from a
// crontab, now has another schedule or zone than t's, as cron reads it
// (nothing is written); the line's schedule and zone when it has.
func (c *crontabs) lineChanged(ctx context.Context, st store.Store, t store.Task) (string, bool) {
	se, sr := c.findLine(t)
	if sr != nil {
		return "", false // not found or not read: shellReplay says so
	}
	sr, _, err := registerEntry(ctx, st, c.m, se, true)
	if err != nil || (sr.task.Schedule == t.Schedule && sr.task.TZ == t.TZ) {
		return "", false
	}
	return sr.task.Schedule + " (" + sr.task.TZ + ")", true
}
