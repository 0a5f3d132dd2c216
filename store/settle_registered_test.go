package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestSetSettledOfRefusesANewRegistration: a watermark write given the
// registration its caller read (SetSettledOf: a scan's) leaves alone a
// task the ledger no longer holds, or holds registered after it (purged,
// then registered again by a fire), and returns ErrGone; the registration
// read, or one moved earlier since (a backdate), is written. A zero
// registration checks nothing, as SetSettled (an unknown task: ErrNotFound).
func TestSetSettledOfRefusesANewRegistration(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			row        time.Time // the task row's registration now; zero: no row
			registered time.Time // as the caller read it
			want       error
		}{
			"task as read":             {row: t0, registered: t0},
			"registered earlier since": {row: t0.Add(-time.Hour), registered: t0},
			"registered again since":   {row: t0.Add(time.Hour), registered: t0, want: store.ErrGone},
			"purged":                   {registered: t0, want: store.ErrGone},
			"unchecked, purged":        {want: store.ErrNotFound},
			"unchecked, registered":    {row: t0.Add(time.Hour)},
		}
		s := be.open(t, be.ledger(t))
		i := 0
		for name, tc := range tests {
			i++
			task := "t" + string(rune('a'+i))
			t.Run(name, func(t *testing.T) {
				settled := tc.row.Add(-time.Second)
				if !tc.row.IsZero() {
					if err := s.UpsertTask(t.Context(), store.Task{Name: task, Schedule: "0 * * * *", RegisteredAt: tc.row,
						UpdatedAt: tc.row, SettledThrough: settled}); err != nil {
						t.Fatal(err)
					}
				}
				through := t0.Add(3 * time.Hour)
				err := s.SetSettledOf(t.Context(), task, store.Of{Registered: tc.registered}, through)
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("SetSettledOf: %v; want %v", err, tc.want)
				}
				if tc.row.IsZero() {
					return
				}
				cur, err := s.Task(t.Context(), task)
				if err != nil {
					t.Fatal(err)
				}
				want := through
				if tc.want != nil {
					want = settled
				}
				if !cur.SettledThrough.Equal(want) {
					t.Errorf("watermark %s; want %s", cur.SettledThrough.UTC().Format(time.RFC3339), want.UTC().Format(time.RFC3339))
				}
			})
		}
	})
}
