package catchup

// The ledger keeps a task's --notify-cmd as it keeps its command: with the
// well-known shapes of a secret masked (catchup/redact). The fire that
// carries the flag runs its own as written. A replay, a backfill and scan's
// missed-slot alert read the ledger's: they never run a masked one (it
// would page with ***), and scan says so once for the task. The task stays
// replayable: only its --notify-cmd is withheld.

import (
	"slices"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/store"
)

// notifyMaskedHint is how to keep a --notify-cmd's secret out of the
// ledger, so that replays run it.
const notifyMaskedHint = "keep the secret in a file or an environment variable the command reads " +
	"(e.g. $HOOK_TOKEN, which is never masked), and its next fire registers it whole"

// storedNotify is t's --notify-cmd as a replay or an alert runs it: ""
// when the ledger keeps it masked.
func storedNotify(t store.Task) string {
	if redact.Masked(t.NotifyCmd) {
		return ""
	}
	return t.NotifyCmd
}

// noticeMaskedNotify says, on the fire that registers it, that the ledger
// keeps the task's --notify-cmd (stored) masked: scan's replays will not
// run it. A fire of a task already registered with that text says nothing.
func (l *lifecycle) noticeMaskedNotify(stored string) {
	if !redact.Masked(stored) || (l.registered != nil && l.registered.NotifyCmd == stored) {
		return
	}
	l.m.notice("task %s: its --notify-cmd carries a secret, which the ledger keeps masked, so scan's replays "+
		"will not run it; %s", l.req.Task, notifyMaskedHint)
}

// noticeMaskedCommand says, on the fire that registers it, that the ledger
// keeps the task's command (row, as this fire registers it) masked: no scan
// can replay its missed slots and backfill refuses it (Unreplayable). As
// noticeMaskedNotify: a fire of a task already registered with that masked
// command says nothing; the first fire, one that changes the stored command
// and one that registers a retired task anew say it.
func (l *lifecycle) noticeMaskedCommand(row store.Task) {
	if !Unreplayable(row) || (l.registered != nil && Unreplayable(*l.registered) && slices.Equal(l.registered.Argv, row.Argv)) {
		return
	}
	l.m.notice("task %s: its command carries a secret, which the ledger keeps masked, so scan cannot replay its missed "+
		"slots and backfill refuses them; %s", l.req.Task, redactedHint)
}

// notifyWithheld says that what runs task t (by: "backfill does") does not
// run its --notify-cmd, which the ledger keeps masked; "" when it is not.
func notifyWithheld(t store.Task, by string) string {
	if t.NotifyCmd == "" || storedNotify(t) != "" {
		return ""
	}
	return "task " + t.Name + ": its --notify-cmd carries a secret, which the ledger keeps masked: " +
		by + " not run it; " + notifyMaskedHint
}

// warnNotifyWithheld warns, once for the task, when a scan's replays
// (replays of them) or its missed-slot alert would have run t's masked
// --notify-cmd: not when scan's own --notify-cmd alerts and nothing is
// replayed.
func (ts *TaskScan) warnNotifyWithheld(t store.Task, replays int, req ScanRequest) {
	by := "its replays and scan's alert do"
	if t.Shell != "" {
		// A crontab line's replays run the line, its --notify-cmd as
		// written: only scan's alert reads the ledger's.
		by, replays = "scan's alert does", 0
	}
	if req.DryRun || len(ts.Missed) == 0 || (replays == 0 && req.NotifyCmd != "") {
		return
	}
	if w := notifyWithheld(withCommand(t, req), by); w != "" {
		ts.Warnings = append(ts.Warnings, w)
	}
}
