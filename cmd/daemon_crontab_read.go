package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/internal/filetrust"
)

// readDaemonCrontab reads a crontab that no other user can have written,
// in place or by renaming a file over it (catchup.OpenOwnCrontab): the
// daemon runs its lines as itself.
func readDaemonCrontab(path string) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("read crontab: %w", err)
	}
	data, err := catchup.OpenOwnCrontab(abs, os.Geteuid())
	return data, crontabOpenFix(err, abs, os.Geteuid())
}

// crontabOpenFix adds the fix to a crontab the daemon (uid) could not open:
// not there (a path mistyped, a volume not mounted), or not readable by
// it. A refusal (filetrust.Refusal) already says its fix.
func crontabOpenFix(err error, path string, uid int) error {
	var refused *filetrust.Refusal
	switch {
	case err == nil || errors.As(err, &refused):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w; fix: give --crontab the path of an existing crontab file (a volume not mounted yet?)", err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w; fix: let %s, which runs the daemon, read %s and search its directories "+
			"(chown %d %s, or chmod a+r on a file of root's), or run the daemon as the crontab's owner",
			err, filetrust.Describe(uid), path, uid, path)
	}
	return err
}
