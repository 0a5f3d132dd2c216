package catchup

// A plain scan learns an edited crontab line before it replays it
// (docs/slots.md, "A crontab line edited between scans").

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/store"
)

// lineEdit re-reads the line of task t, registered from a crontab, and
// reads it as scan --crontab would register it, without writing: next is
// that registration, changed whether its schedule or zone, as cron reads
// them, are no longer t's. sr is findLine's when the line cannot be found
// or read; err, a line that registration refuses.
func (c *crontabs) lineEdit(ctx context.Context, st store.Store, t store.Task) (se sourcedEntry, sr *shellReplay, next store.Task, changed bool, err error) {
	se, sr = c.findLine(t)
	if sr != nil {
		return se, sr, t, false, nil
	}
	reg, _, err := registerEntry(ctx, st, c.m, se, c.tolerance, true, "", nil)
	if err != nil {
		return se, nil, t, false, err
	}
	return se, nil, reg.task, reg.task.Schedule != t.Schedule || reg.task.TZ != t.TZ, nil
}

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
func (c *crontabs) lineReplay(ctx context.Context, st store.Store, t store.Task, dry bool, notify string) (store.Task, *shellReplay, string, error) {
	se, sr, _, changed, err := c.lineEdit(ctx, st, t)
	if sr != nil && sr.gone != "" {
		if err := dirMissing(t.Name, sr.gone); err != nil {
			return t, nil, "", err
		}
	}
	if sr != nil {
		return t, sr, "", nil
	}
	if errors.Is(err, errNotesHeld) {
		// Edited, and another scan holds notes of the task: as scan
		// --crontab, neither registered nor scanned (never replayed as
		// the old registration reads it, with the edited line).
		return t, nil, "", err
	}
	if err != nil || !changed {
		// Unchanged, or refused as registered: replayed, or refused, as
		// the registration reads it.
		return t, c.registeredReplay(t, se), "", nil
	}
	sr, warning, err := registerEntry(ctx, st, c.m, se, c.tolerance, dry, notify, &t)
	if err != nil {
		return t, nil, warning, err
	}
	if sr.alertLeft != nil {
		sr.alertLeft()
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

// dirMissing refuses to take task's crontab at path for gone when its
// directory is missing too: no deleted crontab, but a filesystem not
// mounted yet (a boot scan before /var is) or a path moved. Retired, the
// task's missed slots would be recorded expired, never replayed; left
// unscanned, the next scan that finds the crontab replays them.
func dirMissing(task, path string) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("task %s: its crontab %s is missing, and so is its directory %s (a filesystem not mounted yet?): "+
		"%w; the next scan looks again (catchup forget %s retires it)", task, path, dir, errCrontabDirMissing, task)
}

// errCrontabDirMissing marks a task left unscanned by dirMissing.
var errCrontabDirMissing = errors.New("not scanned, nor retired")
