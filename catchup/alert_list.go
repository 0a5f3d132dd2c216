package catchup

import "strings"

// The list variables of scan's missed-slots alert (CATCHUP_MISSED_SLOTS,
// CATCHUP_MISSED_CAUSES, CATCHUP_EXPIRED_SLOTS) grow with the outage, but
// Linux refuses to exec a command with one environment string over 128 KiB
// (MAX_ARG_STRLEN), and bounds argv and environment together: the alert of
// the biggest outage would never go out. Each list is therefore bounded.
const (
	// alertListEnds is how many words each end of a long list keeps.
	alertListEnds = 100
	// alertListGap is the word that stands, alone, for the words left out
	// of a list between its first and its last alertListEnds. The counts
	// (CATCHUP_MISSED, CATCHUP_EXPIRED) stay whole.
	alertListGap = "..."
)

// alertList joins words with spaces: all of them when there are at most
// 2*alertListEnds, else the first and the last alertListEnds with
// alertListGap between them. Lists in step (slots and their causes) stay
// in step: the same positions are kept.
func alertList(words []string) string {
	if len(words) <= 2*alertListEnds {
		return strings.Join(words, " ")
	}
	kept := make([]string, 0, 2*alertListEnds+1)
	kept = append(kept, words[:alertListEnds]...)
	kept = append(kept, alertListGap)
	kept = append(kept, words[len(words)-alertListEnds:]...)
	return strings.Join(kept, " ")
}
