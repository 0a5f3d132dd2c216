package catchup

// A crontab line's own --notify-cmd is its task's alert from the scan that
// registers the line, as a `catchup run --cron` fire's is from its fire: a
// fire of a crontab line's task never overwrites the line's registration
// (store: the line is the source of truth), so before, a task scan found
// first kept no alert, and the slots scan alerted (missed, or recorded
// expired by an edit of the line) paged no one.

import (
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/store"
)

// lineNotify is the --notify-cmd that the registration of line e (run
// through sr) stores, masked as a fire's is (redact.Command: scan's alert
// never runs a masked one), and as written, as the line's fire runs it (the
// alert of the slots its edit leaves behind: registerEntry). "" when the
// line has none: the line is the task's source of truth. ok is false when
// the line's own is not taken, and the registration keeps the task's as it
// did (registerEntry):
//
//   - another user's line (a root scan's): its alert would run as root a
//     command from a file that user controls (scanAlertCommand, prune);
//   - a value the line's shell expands at the fire that scan cannot know
//     ("$PAGER": cron sets none, and $PAGER in scan's environment is
//     another; `cmd`): lineNotifyWarning says so. One that depends only on
//     what cron and the crontab give the line ("$HOME/alert.sh") is
//     expanded as the line's shell expands it (expandedNotify);
//   - a scan by a user other than root on a shared ledger: a root scan or
//     prune of that ledger runs a crontab line's stored alert as root
//     when its registration is an older catchup's, which names no user
//     (ownNotifyCmd then goes by the file's owner).
func lineNotify(m Machine, st store.Store, sr *shellReplay, e crontab.Entry) (stored, written string, ok bool) {
	if sr == nil || sr.as != nil || (m.UID != 0 && st.Shared()) {
		return "", "", false
	}
	written = e.NotifyCmd
	if e.NotifyExpands {
		var why string
		if written, why, _ = expandedNotify(e, lineShellVars(m, sr)); why != "" {
			return "", "", false
		}
	}
	return redact.Command(written), written, true
}
