package daemon

import "github.com/catchup/catchup/catchup"

// sayLineDiffers logs, as a warning, how a fire found task's line to
// differ from its registration (catchup.LineDiffers): once per change, not
// at every fire. A fire that registered its line is a change, said; one
// that found the registration its line again forgets the last said, so a
// later difference is said anew.
func (d *Daemon) sayLineDiffers(task string, diff catchup.LineDiffers) {
	d.mu.Lock()
	say := false
	switch {
	case diff.Registered:
		delete(d.lineSaid, task) // the registration is the line now
		say = true
	case diff.Warning == "":
		delete(d.lineSaid, task)
	case d.lineSaid[task] != diff.Key:
		d.lineSaid[task] = diff.Key
		say = true
	}
	d.mu.Unlock()
	if say {
		d.cfg.Log.Warn(diff.Warning, "event", "warning", "task", task)
	}
}
