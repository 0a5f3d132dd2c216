package catchup

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestProgressChannel: a report through the channel is recorded on the
// channel's run only; another run's id is refused; once the run is over
// (the channel closed) a late report gets an error, never a hang.
func TestProgressChannel(t *testing.T) {
	ctx := context.Background()
	st, _ := testLedger(t)
	now := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	var ids []int64
	for range 2 {
		id, err := st.AddRun(ctx, store.Run{Task: "t", Trigger: store.TriggerManual, Status: store.StatusRunning,
			Attempt: 1, StartedAt: now, Host: "testhost"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	pc, err := openProgressChannel(ctx, st, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	fd := int(pc.child.Fd())
	if err := SendProgress(fd, ProgressReport{RunID: ids[0], Percent: 40, Note: "row 812"}); err != nil {
		t.Fatalf("own run: %v", err)
	}
	if err := SendProgress(fd, ProgressReport{RunID: ids[1], Percent: 90}); err == nil {
		t.Error("a report on another run was accepted")
	}
	for i, want := range []string{"row 812", ""} {
		r, err := st.Run(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if r.Checkpoint != want {
			t.Errorf("run %d checkpoint %q, want %q", ids[i], r.Checkpoint, want)
		}
	}
	child, err := dupFile(pc.child)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	pc.close()
	err = SendProgress(int(child.Fd()), ProgressReport{RunID: ids[0], Percent: 50})
	if !errors.Is(err, ErrNoProgressChannel) {
		t.Errorf("a report after the run: %v, want ErrNoProgressChannel", err)
	}
}

// dupFile is a second descriptor of f, as a job holds after the run ended.
func dupFile(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}
