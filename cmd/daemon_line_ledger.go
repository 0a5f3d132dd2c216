package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// checkDaemonLineVariables refuses a crontab variable above a daemon line
// that, under cron, sends the line's catchup run to another ledger or host
// (CATCHUP_DB=, CATCHUP_DB_FILE=, CATCHUP_HOST=), as --db and --host on the
// line are refused: the daemon records every task in its own ledger as its
// own host, and ignoring the variable silently would split a fleet that
// shared a ledger under cron into replicas each running every slot. The
// daemon's own ledger or host, however spelled, is fine. home is the
// line's, where cron's catchup run would start (a relative path's base).
func checkDaemonLineVariables(m catchup.Machine, j crontab.Job, home string) error {
	vars := map[string]string{}
	for _, kv := range j.Env {
		switch k, v, _ := cutEnv(kv); k {
		case "CATCHUP_DB", "CATCHUP_DB_FILE", "CATCHUP_HOST", "CATCHUP_STATE_DIR", "XDG_STATE_HOME":
			vars[k] = v
		}
	}
	const fix = "the daemon records every task in its own ledger; drop it, or set catchup daemon --db"
	if _, ok := j.Flags["db"]; !ok { // a line's --db goes first, and is checked as a flag
		if v := vars["CATCHUP_DB"]; v != "" {
			if !catchup.SameLedger(v, m.DB, home) {
				return fmt.Errorf("CATCHUP_DB (the crontab's, above the line) names ledger %s: %s", taskname.Shown(store.SafeLocation(v), 128), fix)
			}
		} else if f := vars["CATCHUP_DB_FILE"]; f != "" {
			if !filepath.IsAbs(f) {
				f = filepath.Join(home, f)
			}
			loc, err := readLedgerFile(f)
			if err != nil {
				return fmt.Errorf("CATCHUP_DB_FILE (the crontab's, above the line): %w", err)
			}
			if !catchup.SameLedger(loc, m.DB, home) {
				return fmt.Errorf("CATCHUP_DB_FILE (the crontab's, above the line) names ledger %s: %s", taskname.Shown(store.SafeLocation(loc), 128), fix)
			}
		} else if name, dir := stateDirVariable(vars); dir != "" {
			loc := filepath.Join(dir, "catchup.db")
			if !filepath.IsAbs(loc) {
				loc = filepath.Join(home, loc)
			}
			if !catchup.SameLedger(loc, m.DB, home) {
				return fmt.Errorf("%s (the crontab's, above the line) places the ledger at %s: %s", name, taskname.Shown(loc, 128), fix)
			}
		}
	}
	if v := vars["CATCHUP_HOST"]; v != "" && v != m.Host {
		return fmt.Errorf("CATCHUP_HOST (the crontab's, above the line) is %s: the daemon records every fire as its own host; drop it, or set catchup daemon --host", taskname.QuotedUpTo(v, 128))
	}
	return nil
}

// stateDirVariable is the crontab variable that, under cron, places the
// default ledger of a line without --db, CATCHUP_DB= or CATCHUP_DB_FILE=,
// and the directory it places it in, as stateDirOf reads them for the
// daemon's user: CATCHUP_STATE_DIR, else (but for root, whose default is
// /var/lib/catchup) an absolute XDG_STATE_HOME's catchup directory. Both
// empty when the crontab sets neither.
func stateDirVariable(vars map[string]string) (name, dir string) {
	if d := vars["CATCHUP_STATE_DIR"]; d != "" {
		return "CATCHUP_STATE_DIR", d
	}
	if d := vars["XDG_STATE_HOME"]; d != "" && filepath.IsAbs(d) && os.Geteuid() != 0 {
		return "XDG_STATE_HOME", filepath.Join(d, "catchup")
	}
	return "", ""
}
