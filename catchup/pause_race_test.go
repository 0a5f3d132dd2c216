package catchup

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// resumeDuring is a ledger on which `catchup resume --replay-paused`
// commits just before the scan's first write of the kind named: the scan
// read the task paused, and writes after the resume.
type resumeDuring struct {
	store.Store
	t       *testing.T
	m       Machine
	before  string // "paused records" or "watermark"
	resumed bool
}

func (r *resumeDuring) resume() {
	if r.resumed {
		return
	}
	r.resumed = true
	if _, err := Resume(context.Background(), r.Store, r.m, ResumeRequest{Task: "job", ReplayPaused: true}); err != nil {
		r.t.Fatalf("resume: %v", err)
	}
}

// AddRunsOf: a scan's paused records name the registration it read.
func (r *resumeDuring) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	if r.before == "paused records" && len(runs) > 0 && runs[0].Status == store.StatusPaused {
		r.resume()
	}
	return r.Store.AddRunsOf(ctx, of, runs)
}

func (r *resumeDuring) SetSettledOf(ctx context.Context, task string, registered store.Of, through time.Time) error {
	if r.before == "watermark" {
		r.resume()
	}
	return r.Store.SetSettledOf(ctx, task, registered, through)
}

// TestResumeDuringAScanKeepsThePausedSlots: a resume --replay-paused that
// commits while a scan works on the paused task (between its read and its
// writes) still makes the pause's slots missed: the next scan replays
// them. The scan recorded them paused after the resume, or moved the
// watermark past them, and they were lost without a word.
func TestResumeDuringAScanKeepsThePausedSlots(t *testing.T) {
	t.Parallel()
	for _, before := range []string{"paused records", "watermark"} {
		t.Run(before, func(t *testing.T) {
			f := newRunFixture(t, "2026-03-01T09:00:30Z")
			f.run(t, f.request(t))
			f.now = mustTime(t, "2026-03-01T09:30:00Z")
			if _, err := Pause(context.Background(), f.st, f.m, PauseRequest{Task: "job"}); err != nil {
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-01T13:30:00Z")
			racing := &resumeDuring{Store: f.st, t: t, m: f.m, before: before}
			if _, err := Scan(context.Background(), racing, f.m, scanRequest()); err != nil {
				t.Fatalf("scan: %v", err)
			}
			if !racing.resumed {
				t.Fatal("the resume never came: the scan wrote nothing of the kind")
			}
			ts := f.scan(t, scanRequest())
			if want := slotTimes(t, 10, 11, 12, 13); !reflect.DeepEqual(ts.Missed, want) {
				t.Errorf("the next scan found missed %v; want the pause's slots %v", ts.Missed, want)
			}
		})
	}
}
