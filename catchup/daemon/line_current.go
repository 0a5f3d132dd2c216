package daemon

// loadedLine is a task's line as the daemon's last load read it: its
// schedule and zone.
type loadedLine struct{ expr, tz string }

// setLoaded records t as the line the daemon runs for its task now (a
// load or reload started its loop); gone, that its task is no longer
// loaded (retired: no line of it is).
func (d *Daemon) setLoaded(t Task, gone bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if gone {
		d.loaded[t.Def.Name] = loadedLine{}
		return
	}
	d.loaded[t.Def.Name] = loadedLine{t.Def.Schedule, t.Def.TZ}
}

// isLoaded reports whether t's line is the one the daemon runs for its
// task now: false for a fire of a loop a reload replaced (another
// schedule or zone), which must not register its old line over the one
// the daemon read since, whoever registered that (another replica that
// reloaded first: the reload then wrote nothing).
// A task no load has recorded (a fire made outside Run) is its own line.
func (d *Daemon) isLoaded(t Task) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	l, ok := d.loaded[t.Def.Name]
	return !ok || l == loadedLine{t.Def.Schedule, t.Def.TZ}
}
