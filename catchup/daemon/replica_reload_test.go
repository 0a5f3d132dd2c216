package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestReloadedLineOldLoopRegistersNothing: a fire of the loop a reload
// replaced (its line edited from "* * * * *" to "*/2 * * * *") finds the
// registration differing from its line; it registers nothing, and the
// registration stays the reloaded line.
//   - "this daemon reloaded": the registration is this daemon's own; taken
//     for another replica's, the old loop's last fire registered the old
//     line back over the reload's. It warns of nothing either.
//   - "the other replica reloaded first": in a rolling edit r2 reloads
//     first and registers the new line; r1's reload finds the registration
//     its new line already and writes nothing, so the registration still
//     names r2. A fire of r1's old loop after the reload (queued for a
//     place under --concurrency) found 10:01 no slot of it and put the old
//     line back over the fleet's new one (found by review).
func TestReloadedLineOldLoopRegistersNothing(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		otherFirst bool // replica r2 reloads the edit before r1 does
	}{
		"this daemon reloaded":             {},
		"the other replica reloaded first": {otherFirst: true},
	}
	for ledger, open := range replicaLedgers {
		for name, tc := range cases {
			t.Run(ledger+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				dir := t.TempDir()
				st, db := open(t, dir)
				now := time.Date(2026, 3, 1, 10, 0, 10, 0, time.UTC)
				r1 := newReplica(t, st, db, dir, filepath.Join(dir, "state-r1"), "r1", &now)
				r1.load(t, "* * * * *")
				old := r1.task
				if tc.otherFirst {
					r2 := newReplica(t, st, db, dir, filepath.Join(dir, "state-r2"), "r2", &now)
					r2.load(t, "* * * * *")
					now = now.Add(20 * time.Second)
					r2.load(t, "*/2 * * * *")
					now = now.Add(10 * time.Second)
				} else {
					now = now.Add(30 * time.Second)
				}
				r1.load(t, "*/2 * * * *")
				now = time.Date(2026, 3, 1, 10, 1, 0, int(500*time.Millisecond), time.UTC)
				r1.d.fire(ctx, old, time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)) // the old loop's, before it ended
				reg, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				if reg.Schedule != "*/2 * * * *" {
					t.Errorf("registered %q after the old loop's fire; want the reloaded %q (r1's log:\n%s)",
						reg.Schedule, "*/2 * * * *", r1.logs.String())
				}
				if w := r1.warnings(); !tc.otherFirst && len(w) != 0 {
					t.Errorf("warned %q; want nothing (the registration is this daemon's own)", w)
				}
			})
		}
	}
}
