package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestOldLoopAfterOtherReplicaReloadedFirst: in a rolling edit ("* * * * *"
// to "*/2 * * * *") replica r2 reloads first and registers the new line;
// r1's reload then finds the registration its new line already and writes
// nothing, so the registration still names r2. A fire of r1's old loop that
// comes after the reload (queued for a place under --concurrency) must
// register nothing: before, it took the registration for another
// replica's, found 10:01 no slot of it, and put the old line back over the
// fleet's new one (found by review).
func TestOldLoopAfterOtherReplicaReloadedFirst(t *testing.T) {
	for name, open := range replicaLedgers {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			st, db := open(t, dir)
			now := time.Date(2026, 3, 1, 10, 0, 10, 0, time.UTC)
			r1 := newReplica(t, st, db, dir, filepath.Join(dir, "state-r1"), "r1", &now)
			r2 := newReplica(t, st, db, dir, filepath.Join(dir, "state-r2"), "r2", &now)
			r1.load(t, "* * * * *")
			r2.load(t, "* * * * *")
			old := r1.task
			now = now.Add(20 * time.Second)
			r2.load(t, "*/2 * * * *") // r2 reloads the edit first
			now = now.Add(10 * time.Second)
			r1.load(t, "*/2 * * * *") // then r1: the registration is that line already
			now = time.Date(2026, 3, 1, 10, 1, 0, int(500*time.Millisecond), time.UTC)
			r1.d.fire(ctx, old, time.Date(2026, 3, 1, 10, 1, 0, 0, time.UTC)) // r1's old loop, before it ended
			reg, err := st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			if reg.Schedule != "*/2 * * * *" {
				t.Errorf("registered %q after r1's old loop's fire; want %q, the line both replicas reloaded (r1's log:\n%s)",
					reg.Schedule, "*/2 * * * *", r1.logs.String())
			}
		})
	}
}
