package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// A scan's replay claim, as a backlog's replays make it: the claim of a
// slot carries the held outcome of the slot before, and its commit's sync
// runs beside the job (walsync.go). The sync is waited for outside the
// timer, as the job's run hides it in a scan: what is timed is the ledger
// work on a replay's path between one job's end and the next one's start.
func BenchmarkReplayClaim(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "ledger.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := b.Context()
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	task := store.Task{Name: "backup", Schedule: "* * * * *", Argv: []string{"/bin/true"}, RegisteredAt: t0, UpdatedAt: t0}
	if err := s.UpsertTask(ctx, task); err != nil {
		b.Fatal(err)
	}
	boot := store.Boot{Host: "h", ID: "boot-1", Time: t0, LastSeen: t0}
	var held *store.Settlement
	i := 0
	for b.Loop() {
		b.StopTimer()
		if err := s.awaitSync(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		slot := t0.Add(time.Duration(i) * time.Minute)
		i++
		res, err := s.Claim(ctx, store.ClaimRequest{
			Run:    store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerReplay, StartedAt: slot, Host: "h", BootID: "boot-1"},
			Replay: true, RefusePaused: true, Settle: held, Boot: &boot,
		})
		if err != nil || !res.Claimed {
			b.Fatalf("Claim = %+v, %v", res, err)
		}
		held = &store.Settlement{ID: res.Run.ID, Outcome: store.Outcome{Status: store.StatusSucceeded, ExitCode: new(int), EndedAt: slot.Add(time.Second)}}
	}
}
