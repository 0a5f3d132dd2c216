package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/catchup/catchup/catchup"
)

// expiryRun is a run of consecutive "would expire" slots of a dry run's
// task, of one cause and reason: one line for the run, as policy none's
// "would stay missed" line is (a week's outage of a minutely task printed
// 10,000 lines, where the real scan prints a count). JSON lists each slot.
type expiryRun struct {
	first, last   time.Time
	n             int
	cause, reason string
}

// add takes a into the run when it extends it (a "would expire" slot of
// the same cause and reason); else it writes the run to w and starts a new
// one with a when a would expire, an empty one when not. It reports
// whether a was taken (nothing else to write of it).
func (r *expiryRun) add(w io.Writer, a catchup.SlotAction) bool {
	if a.Action != catchup.ActionWouldExpire {
		r.flush(w)
		return false
	}
	if r.n > 0 && r.cause == a.Cause && r.reason == a.Reason {
		r.last, r.n = a.Slot, r.n+1
		return true
	}
	r.flush(w)
	*r = expiryRun{first: a.Slot, last: a.Slot, n: 1, cause: a.Cause, reason: a.Reason}
	return true
}

// flush writes the run to w, its slot alone when one, and empties it.
func (r *expiryRun) flush(w io.Writer) {
	switch {
	case r.n == 1:
		fmt.Fprintf(w, "  %s  %s%s%s\n", r.first.UTC().Format(time.RFC3339), catchup.ActionWouldExpire, gap(r.cause), gap(printable(r.reason)))
	case r.n > 1:
		fmt.Fprintf(w, "  %s to %s  %d %s%s%s\n", r.first.UTC().Format(time.RFC3339), r.last.UTC().Format(time.RFC3339), r.n,
			catchup.ActionWouldExpire, gap(r.cause), gap(printable(r.reason)))
	}
	*r = expiryRun{}
}
