package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
)

// replayPausedMessage is what `resume --replay-paused` says the next scan
// does with the slots of the pause it gave back: under the task's replay
// policy, its catch-up window and scan's default --max-replays, and with
// the backfill that runs those the scan records expired.
func replayPausedMessage(task string, res catchup.PauseResult) string {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	b := res.Beyond
	floor := !res.PruneFloor.IsZero()
	ofPause := "its pause"
	if floor {
		ofPause = "its pause after " + rfc(res.PruneFloor)
	}
	n := fmt.Sprintf("(%d recorded paused)", res.Unsettled)
	head := fmt.Sprintf("the next scan replays the slots of %s %s", ofPause, n)
	var why, hint string // why: what the policy does; hint: the scan that replays them all
	switch {
	case b.Policy == "coalesce":
		why = `, coalesced, under its replay policy "coalesce"`
	case b.Policy == "none" && b.Stay > 0:
		head = fmt.Sprintf("the next scan replays none of the slots of %s %s", ofPause, n)
		why = fmt.Sprintf(`, under its replay policy "none": they stay missed (catchup ls --missed) until older than its catch-up window (%s), then it records them expired`,
			catchup.FormatDuration(b.Window))
		hint = "; to replay them: catchup scan --task " + task + " --replay all"
	case b.Policy == "latest" && b.Dropped > 0:
		dropped := fmt.Sprintf("(%s to %s), dropped by the policy", rfc(b.DroppedFirst), rfc(b.DroppedLast))
		if b.LatestPaused {
			head = fmt.Sprintf("the next scan replays only the latest slot of %s %s, %s", ofPause, n, rfc(b.Latest))
			why = fmt.Sprintf(`, under its replay policy "latest", and records the %d others expired %s`, b.Dropped, dropped)
		} else {
			head = fmt.Sprintf("the next scan replays none of the slots of %s %s", ofPause, n)
			why = fmt.Sprintf(`: under its replay policy "latest" it replays only the task's latest missed slot, %s, and records %d of them expired %s`,
				rfc(b.Latest), b.Dropped, dropped)
		}
		hint = "; to replay them all: catchup scan --task " + task + " --replay all"
	}
	// Those the next scan records expired whatever is run before it: older
	// than the window, or (policy "all") beyond --max-replays.
	var exp []string
	first, last := b.First, b.Last
	if b.Count > 0 {
		exp = append(exp, fmt.Sprintf("%d older than its catch-up window (%s) (%s to %s)",
			b.Count, catchup.FormatDuration(b.Window), rfc(b.First), rfc(b.Last)))
	}
	if b.Policy != "latest" && b.Dropped > 0 {
		exp = append(exp, fmt.Sprintf("%d beyond scan's --max-replays (%d) (%s to %s)",
			b.Dropped, b.MaxReplays, rfc(b.DroppedFirst), rfc(b.DroppedLast)))
		if b.Count == 0 {
			first = b.DroppedFirst
		}
		last = b.DroppedLast
	}
	expired := ""
	if len(exp) > 0 {
		but := ", but for"
		if floor && why == "" {
			but = "; the next scan replays those after it but for"
		} else if why != "" {
			but = "; of the others, it records"
		}
		expired = fmt.Sprintf("%s %s, which it records expired; to run them: catchup backfill --task %s --from %s --to %s --include-paused",
			but, strings.Join(exp, " and "), task, rfc(first), rfc(last))
		if why != "" {
			expired = fmt.Sprintf("%s %s expired; to run them: catchup backfill --task %s --from %s --to %s --include-paused",
				but, strings.Join(exp, " and "), task, rfc(first), rfc(last))
		}
	}
	msg := "resumed task " + task + "; " + head + why + hint + expired
	if floor {
		msg = fmt.Sprintf("resumed task %s; %s: prune took runs of the slots up to it, which stay as they are; "+
			"to run them: catchup backfill --task %s --from %s --to %s --include-paused",
			task, head, task, rfc(res.PausedAt), rfc(res.PausedThrough))
		if why != "" || hint != "" {
			msg = fmt.Sprintf("resumed task %s; %s%s%s; prune took runs of the slots of its pause up to %s, which stay as they are; "+
				"to run them: catchup backfill --task %s --from %s --to %s --include-paused",
				task, head, why, hint, rfc(res.PruneFloor), task, rfc(res.PausedAt), rfc(res.PausedThrough))
		}
		msg += expired
	}
	return msg
}
