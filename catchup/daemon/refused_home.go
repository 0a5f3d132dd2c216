package daemon

import (
	"fmt"
	"os"
	"time"

	"github.com/catchup/catchup/catchup"
)

// homeRefused reports whether the fire of slot must not start: another
// user controls the line's home, where its job would start (and run a
// ./job.sh of theirs), or it is missing (catchup.RefusedWorkDir). It is
// the directory the line registered, where a scan refuses its replays
// too: so the fire is refused as they are. Nothing is recorded, and the
// slot is left missed (the caller notes it owed), to be replayed, oldest
// first, once the home is fixed. The refusal is said once for the line
// while it stays, by a fire or a scan (refusedNews), not at each fire.
// seen is the home as the check saw it, trusted (fireRequest).
func (d *Daemon) homeRefused(t Task, slot time.Time) (seen os.FileInfo, refused bool) {
	seen, why := catchup.RefusedWorkDir(d.cfg.Machine, t.Req.Dir, t.Req.Argv)
	if why == nil {
		d.refusedNews(t.Def.Name, "")
		return seen, false
	}
	if d.refusedNews(t.Def.Name, why.Error()) {
		d.cfg.Log.Warn(fmt.Sprintf("task %s: its fires are not run, their slots left missed for a replay once fixed: %v",
			t.Def.Name, why), "event", "warning", "task", t.Def.Name)
	}
	d.cfg.Log.Info("not run: its home is refused (said above); the slot is left missed", "event", "skip",
		"task", t.Def.Name, "slot", slot.Format(time.RFC3339), "trigger", triggerSchedule)
	return nil, true
}

// fireRequest is the request of the fire of slot, false when its home is
// refused (homeRefused). It stands for slot however late it starts (a
// place under --concurrency, the task's replays), and hands the job's
// start the home as the check saw it (RunRequest.DirSeen): the start
// only makes sure it still is that directory (one stat), as a scan's
// replay does, not the whole path again.
func (d *Daemon) fireRequest(t Task, slot time.Time) (catchup.RunRequest, bool) {
	seen, refused := d.homeRefused(t, slot)
	if refused {
		return catchup.RunRequest{}, false
	}
	req := t.Req
	req.FireSlot, req.DirSeen = slot, seen
	// Another replica's registration may differ from the line (said once per change).
	req.DaemonLine = &catchup.DaemonLine{Def: t.Def, ZoneFromHost: t.ZoneFromHost,
		Differs: func(diff catchup.LineDiffers) { d.sayLineDiffers(t.Def.Name, diff) },
		Loaded:  func() bool { return d.isLoaded(t) }}
	return req, true
}

// refusedNews reports whether why, a refusal of task's working directory
// (a fire's, or a scan's: TaskScan.StartRefused), is not the one said
// last for it, and keeps it: said once while it stays, again only once
// it changes, or after the directory was found trusted (why "": forgets).
func (d *Daemon) refusedNews(task, why string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if why == "" {
		delete(d.refused, task)
		return false
	}
	if d.refused[task] == why {
		return false
	}
	d.refused[task] = why
	return true
}
