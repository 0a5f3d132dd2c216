package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
)

// lineHome is the directory a daemon line's job starts in, its home: the
// crontab's last HOME above the line, else the daemon's $HOME, else the
// passwd database's. It is registered as the task's directory, where its
// replays start too, and checked before each fire (catchup.RefusedWorkDir).
// A relative home is refused: it would be taken relative to wherever the
// daemon was started (cron takes it relative to its spool directory), and
// the directories above that are not checked; an empty HOME= too (cron
// cannot change to it). With no home at all, the job starts in the
// daemon's current directory: that directory, absolute, is its home, and
// is checked as any, and the job's HOME.
func lineHome(m catchup.Machine, j crontab.Job) (string, error) {
	home, set := "", false
	for _, kv := range j.Env {
		if k, v, _ := cutEnv(kv); k == "HOME" {
			home, set = v, true
		}
	}
	if set && !filepath.IsAbs(home) {
		return "", fmt.Errorf("HOME=%s (the crontab's, above the line) is not an absolute path: "+
			"set HOME in the crontab, above the line, to an absolute directory of your own", quotedValue(home))
	}
	if set {
		return home, nil
	}
	if m.HomeDir != nil {
		if h, err := m.HomeDir(""); err == nil && h != "" {
			if !filepath.IsAbs(h) {
				return "", fmt.Errorf("HOME=%s (the daemon's: no HOME above the line) is not an absolute path: "+
					"set HOME in the crontab, above the line, to an absolute directory of your own, or start the daemon with an absolute HOME", quotedValue(h))
			}
			return h, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("no home and no current directory (%w): set HOME in the crontab, above the line, to a directory of your own", err)
	}
	return wd, nil
}
