package catchup

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// slotClaimedSince is a shared ledger's view of a slot that another host's
// fire claimed between this fire's look for its holder and its claim: the
// look (SlotRuns) finds nobody, the claim finds the slot taken.
type slotClaimedSince struct{ store.Store }

func (slotClaimedSince) SlotRuns(context.Context, string, time.Time, time.Time, time.Duration) ([]store.Run, error) {
	return nil, nil
}

// TestDuplicateClaimKeepsTheRegistration: a duplicate fire whose claim
// itself finds the slot taken (the race above) leaves the task's
// registration as it is, as one whose look found the holder does, and
// names what of its line differs; before, its claim had registered its own
// line in the claim's transaction, before the holder was known.
func TestDuplicateClaimKeepsTheRegistration(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	f.run(t, f.request(t))
	var said bytes.Buffer
	f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	f.now = mustTime(t, "2026-03-01T10:00:40Z") // a stale copy of the line fires 10:00
	stale := f.request(t)
	stale.Argv = []string{"sh", "-c", "echo stale >> " + f.job.dir + "/stale"}
	res, err := Run(context.Background(), slotClaimedSince{f.st}, nil, f.m, stale)
	if err != nil || res.Ran {
		t.Fatalf("Run = %+v, %v; want the duplicate not run", res, err)
	}
	task, err := f.st.Task(context.Background(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(task.Argv, f.job.argv()) {
		t.Errorf("the duplicate registered its command %q; want the line that ran the slot's, %q", task.Argv, f.job.argv())
	}
	if got := said.String(); !strings.Contains(got, "duplicate fire of slot") || !strings.Contains(got, "its command differs") {
		t.Errorf("said:\n%s\nwant the duplicate, and that its command differs from the registration it leaves", got)
	}
}
