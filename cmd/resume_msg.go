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
	if allExpire(res) {
		return allExpireMessage(task, res, ofPause, n)
	}
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
		dropped := span(b.DroppedFirst, b.DroppedLast) + ", dropped by the policy"
		if b.LatestPaused {
			head = fmt.Sprintf("the next scan replays only the latest slot of %s %s, %s", ofPause, n, rfc(b.Latest))
			others := fmt.Sprintf("the %d others", b.Dropped)
			if b.Dropped == 1 {
				others = "the other"
			}
			why = fmt.Sprintf(`, under its replay policy "latest", and records %s expired %s`, others, dropped)
		} else {
			head = fmt.Sprintf("the next scan replays none of the slots of %s %s", ofPause, n)
			why = fmt.Sprintf(`: under its replay policy "latest" it replays only the task's latest missed slot, %s, and records %d of them expired %s`,
				rfc(b.Latest), b.Dropped, dropped)
		}
		hint = "; to replay them all: catchup scan --task " + task + " --replay all"
	}
	// Those the next scan records expired whatever is run before it: older
	// than the window, or (policy "all") beyond --max-replays.
	exp, first, last := expiredParts(b)
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

// allExpire reports whether the next scan records every slot the resume
// gave back expired, whatever the task's replay policy: each older than
// the catch-up window or (policy "all") beyond scan's --max-replays. A
// policy "latest" whose latest slot is not the pause's is told as such
// (replayPausedMessage).
func allExpire(res catchup.PauseResult) bool {
	b := res.Beyond
	gone := b.Count
	if b.Policy != "latest" {
		gone += b.Dropped
	} else if b.Dropped > 0 {
		return false
	}
	return res.Unsettled > 0 && int64(gone) >= res.Unsettled
}

// allExpireMessage is replayPausedMessage when allExpire: no "replays the
// slots ... but for" them all, nor the policy's words for slots it never
// sees; the backfill that runs them.
func allExpireMessage(task string, res catchup.PauseResult, ofPause, n string) string {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	b := res.Beyond
	exp, first, last := expiredParts(b)
	msg := fmt.Sprintf("resumed task %s; the next scan replays none of the slots of %s %s: it records them all expired, %s",
		task, ofPause, n, strings.Join(exp, " and "))
	if res.PruneFloor.IsZero() {
		return fmt.Sprintf("%s; to run them: catchup backfill --task %s --from %s --to %s --include-paused",
			msg, task, rfc(first), rfc(last))
	}
	return fmt.Sprintf("%s; prune took runs of the slots of its pause up to %s, which stay as they are; "+
		"to run them all: catchup backfill --task %s --from %s --to %s --include-paused",
		msg, rfc(res.PruneFloor), task, rfc(res.PausedAt), rfc(last))
}

// expiredParts are the counts, each with its span, of the slots given back
// that the next scan records expired (older than the window; beyond
// --max-replays, but for policy "latest", which tells its own), and the
// first and last of them all.
func expiredParts(b catchup.BeyondWindow) (exp []string, first, last time.Time) {
	first, last = b.First, b.Last
	if b.Count > 0 {
		exp = append(exp, fmt.Sprintf("%d older than its catch-up window (%s) %s",
			b.Count, catchup.FormatDuration(b.Window), span(b.First, b.Last)))
	}
	if b.Policy != "latest" && b.Dropped > 0 {
		exp = append(exp, fmt.Sprintf("%d beyond scan's --max-replays (%d) %s",
			b.Dropped, b.MaxReplays, span(b.DroppedFirst, b.DroppedLast)))
		if b.Count == 0 {
			first = b.DroppedFirst
		}
		last = b.DroppedLast
	}
	return exp, first, last
}

// span is the slots from first to last, in parentheses: one slot alone
// when they are the same.
func span(first, last time.Time) string {
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	if first.Equal(last) {
		return "(" + rfc(first) + ")"
	}
	return "(" + rfc(first) + " to " + rfc(last) + ")"
}
