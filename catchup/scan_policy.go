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
