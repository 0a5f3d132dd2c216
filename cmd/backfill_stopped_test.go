package cmd

import (
	"context"
	"testing"

	"github.com/catchup/catchup/catchup"
)

// TestBackfillStoppedCountsInWords: the line of a backfill a signal cut
// short says "1 slot left ... backfill it again", not "1 slots ... them".
func TestBackfillStoppedCountsInWords(t *testing.T) {
	for name, tc := range map[string]struct {
		left int
		want string
	}{
		"none": {0, "backfill stopped by SIGTERM: no slot was cut short; 0 slots left, not run; backfill them again"},
		"one":  {1, "backfill stopped by SIGTERM: no slot was cut short; 1 slot left, not run; backfill it again"},
		"more": {3, "backfill stopped by SIGTERM: no slot was cut short; 3 slots left, not run; backfill them again"},
	} {
		t.Run(name, func(t *testing.T) {
			err := backfillStopped(context.Background(), []catchup.TaskBackfill{{Left: tc.left}})
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
