package catchup

import (
	"os"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/store"
)

// An owed alert is paid by another process (the next scan, prune, purge,
// migrate, a daemon), from its own working directory: the alert must
// still run where it would have run, where its job runs (taskAlertDir,
// lifecycle.alertDir), its relative paths meaning what they meant to the
// process that owed it. So the owing process keeps that directory in the
// file (owedAlert.Dir), and the payer runs the alert there while it is
// still trusted as a replay's is; a directory gone or refused since: in
// the payer's own, never lost. Before, the payer ran a fire's owed alert
// in the task's registered directory of the day (another fire, started
// elsewhere since, had registered its own), and a daemon line's alert,
// whose command the ledger keeps masked, in its own working directory.

// alertRunsIn is the directory an alert run as as says runs in, kept
// with it while it is owed: as's, else this process's working directory
// ("" when that cannot be read: the payer decides, as for an older file).
func alertRunsIn(as notify.As) string {
	if as.Dir != "" {
		return as.Dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// owedAlertDir is where the payer runs owed alert a, as taskAlertDir says
// of the directory the file keeps; for a file of an older catchup, which
// keeps none, the task's registered directory (reg; ok false for a task
// gone) when a's command is the task's own, else the payer's own.
func owedAlertDir(m Machine, a owedAlert, reg store.Task, ok bool) notify.As {
	if a.Dir != "" {
		return taskAlertDir(m, store.Task{Dir: a.Dir})
	}
	if !ok || a.Cmd == "" {
		return notify.As{}
	}
	if a.Run == nil && a.Cmd != alertCommand(m, "", reg) {
		return notify.As{} // not the task's own: the command given to the scan
	}
	return taskAlertDir(m, reg)
}

// givenAlertAt is t as taskAlertDir takes it for an alert whose command
// given (scan's, prune's, a fire's own --notify-cmd, "" none) was given to
// this process: with no directory, its relative paths this process's.
func givenAlertAt(t store.Task, given string) store.Task {
	if given != "" {
		t.Dir = ""
	}
	return t
}
