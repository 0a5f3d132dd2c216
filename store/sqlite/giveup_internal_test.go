package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestGiveUpNeverCutsABegunWrite: once a marked write has the ledger's
// lock, its giveUp being done (and its last chance over) does not cut it:
// its statements run and it commits.
func TestGiveUpNeverCutsABegunWrite(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	giveUp, stop := context.WithCancel(context.Background())
	ctx := store.GiveUpWaitsWhen(context.Background(), giveUp)
	tx, err := s.begin(ctx)
	if err != nil {
		t.Fatalf("begin on a free ledger: %v", err)
	}
	stop()
	// past the last chance: a wait still going on would have given up
	lastChanceOver := time.NewTimer(2 * store.LastChance)
	<-lastChanceOver.C
	if err := upsertTask(ctx, tx, store.Task{Name: "begun", Source: "crontab:c:1"}); err != nil {
		t.Fatalf("a write begun before its giveUp, after it: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit of a write begun before its giveUp: %v", err)
	}
	if _, err := s.Task(context.Background(), "begun"); err != nil {
		t.Errorf("the write begun before its giveUp is not in the ledger: %v", err)
	}
}
