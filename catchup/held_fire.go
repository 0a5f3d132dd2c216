package catchup

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// ReasonHeldStopped is why a daemon's fire held back behind its task's
// own running job ran nothing: the daemon stopped before its turn.
const ReasonHeldStopped = "held behind the task's running job; the daemon stopped before its turn"

// RecordHeldFire records the fire of slot that catchup daemon held back
// behind task's own running job (a fire or a replay of the task) and that
// never had its turn: the daemon stopped first. It is a lock skip (exit
// 75), as the fire would have recorded had it gone to the lock, so that
// its slot's cause is lock-busy for every reader (causeOf), not
// not-fired: its fire came, and found the task busy. The slot stays
// missed: the next start replays it.
func RecordHeldFire(ctx context.Context, st store.Store, m Machine, task string, slot time.Time) (store.Run, error) {
	now := m.Now() // one reading: a skip's duration is 0s
	r := store.Run{Task: task, Slot: slot, Trigger: store.TriggerSchedule, Attempt: 1, Status: store.StatusSkipped,
		ExitCode: exitCodePtr(exitLocked), Error: ReasonHeldStopped, StartedAt: now, EndedAt: now,
		Host: m.Host, PID: m.PID, BootID: m.BootID}
	id, err := st.AddRun(ctx, r)
	r.ID = id
	return r, err
}
