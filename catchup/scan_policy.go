package catchup

import (
	"fmt"
	"time"
)

// plan splits missed slots into those to replay and those to record
// expired, with the reason (coalesce is coalescedGaps').
func plan(missed []time.Time, policy string, maxReplays int) (replay []time.Time, skip []time.Time, reason string) {
	switch policy {
	case "none":
		return nil, nil, ""
	case "latest":
		if len(missed) == 0 {
			return nil, nil, ""
		}
		return missed[len(missed)-1:], missed[:len(missed)-1], fmt.Sprintf(reasonPolicy, "latest")
	}
	if maxReplays > 0 && len(missed) > maxReplays {
		cut := len(missed) - maxReplays
		return missed[cut:], missed[:cut], fmt.Sprintf(reasonMaxReplays, maxReplays)
	}
	return missed, nil, ""
}

// reasonPolicyNone is why a slot of policy "none" stays missed, and until
// when: FormatDuration of the task's catch-up window.
const reasonPolicyNone = `replay policy "none": recorded expired once older than the catch-up window (%s)`

// StaysMissed is a run of a task's missed slots that its replay policy
// "none" leaves missed: scan neither replays nor records them until they are
// older than the task's catch-up window (then it records them expired). No
// slot line names them: a dry run says them in one line, N, First to Last,
// and Reason.
type StaysMissed struct {
	N           int
	First, Last time.Time
	Reason      string
}

// staysMissed is what policy leaves missed of the missed slots inWindow
// (oldest first, all inside the catch-up window): all of them under "none",
// else none.
func staysMissed(inWindow []time.Time, policy string, window time.Duration) StaysMissed {
	if policy != "none" || len(inWindow) == 0 {
		return StaysMissed{}
	}
	return StaysMissed{N: len(inWindow), First: inWindow[0], Last: inWindow[len(inWindow)-1],
		Reason: fmt.Sprintf(reasonPolicyNone, FormatDuration(window))}
}
