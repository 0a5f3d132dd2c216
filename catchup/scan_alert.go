package catchup

import (
	"context"
	"errors"
	"strings"
	"time"
)

// stoppedAlertBound bounds a missed-slots alert sent while catchup is being
// stopped (a stopped scan still alerts each task it had started): the
// stop must end well within a service manager's stop timeout (systemd's
// is 90 s; the replay the stop cut short may take its --kill-after first).
// A second stop signal, forwarded to the alert command, ends it sooner.
const stoppedAlertBound = 5 * time.Second

var errStoppedAlert = errors.New("catchup is being stopped, and an alert then gets " + FormatDuration(stoppedAlertBound))

// alertContext is the context an alert command runs under: never ended
// by ctx, since an alert must go out, but bounded by stoppedAlertBound
// when ctx is done already (catchup is being stopped).
func alertContext(ctx context.Context) (context.Context, context.CancelFunc) {
	actx := context.WithoutCancel(ctx)
	if ctx.Err() == nil {
		return actx, func() {}
	}
	return context.WithTimeoutCause(actx, stoppedAlertBound, errStoppedAlert)
}

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

// alertSlots is alertList of n slots (slot(i) the i-th) in RFC 3339, in
// UTC, formatting only the slots it keeps: a gap of a year is half a
// million of them, 20 MB as strings, of which it keeps 200.
func alertSlots(n int, slot func(i int) time.Time) string {
	words := make([]string, 0, min(n, 2*alertListEnds+1))
	for i := 0; i < n; i++ {
		if n > 2*alertListEnds && i == alertListEnds {
			words, i = append(words, alertListGap), n-alertListEnds
		}
		words = append(words, slot(i).UTC().Format(time.RFC3339))
	}
	return strings.Join(words, " ")
}
