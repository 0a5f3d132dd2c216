package catchup

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/store"
)

// notifyMissed runs scan's --notify-cmd (or the task's own) once for a task
// whose missed slots scan found, with CATCHUP_STATUS=missed, the slots, and
// how many it replayed, failed and skipped by policy.
func notifyMissed(ctx context.Context, m Machine, cmd string, t store.Task, ts TaskScan) {
	if cmd == "" {
		cmd = t.NotifyCmd
	}
	if cmd == "" || len(ts.Missed) == 0 {
		return
	}
	slots := make([]string, len(ts.Missed))
	for i, s := range ts.Missed {
		slots[i] = s.UTC().Format(time.RFC3339)
	}
	env := append(jobEnviron(m),
		"CATCHUP_TASK="+t.Name, "CATCHUP_DB="+store.WithoutPassword(m.DB), "CATCHUP_STATUS=missed",
		"CATCHUP_MISSED="+strconv.Itoa(len(ts.Missed)), "CATCHUP_MISSED_SLOTS="+strings.Join(slots, " "),
		"CATCHUP_REPLAYED="+strconv.Itoa(ts.Replayed), "CATCHUP_FAILED="+strconv.Itoa(ts.Failed),
		"CATCHUP_SKIPPED="+strconv.Itoa(ts.Skipped), "CATCHUP_POLICY="+ts.Policy)
	runNotifyCmd(context.WithoutCancel(ctx), m, cmd, env)
}
