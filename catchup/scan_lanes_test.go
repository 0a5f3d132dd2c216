package catchup

import (
	"context"
	"errors"
	"fmt"
	"os/user"
	"sync"
	"testing"
	"time"
)

// TestUserLanes: a scan's own tasks in the first lane, each other user's
// lines (by uid, two names of one uid in one lane) in a lane of its own,
// every lane in the tasks' order.
func TestUserLanes(t *testing.T) {
	t.Parallel()
	as := func(uid string) *shellReplay { return &shellReplay{as: &user.User{Uid: uid}} }
	tests := map[string]struct {
		srs  []*shellReplay
		n    int
		want string
	}{
		"no crontab":       {nil, 3, "[[0 1 2]]"},
		"own lines only":   {[]*shellReplay{{}, {}}, 2, "[[0 1]]"},
		"users after own":  {[]*shellReplay{as("65534"), {}, as("1"), as("65534"), nil}, 5, "[[1 4] [0 3] [2]]"},
		"users only":       {[]*shellReplay{as("1"), as("1")}, 2, "[[] [0 1]]"},
		"fewer srs than n": {[]*shellReplay{as("1")}, 3, "[[1 2] [0]]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := fmt.Sprint(userLanes(tc.srs, tc.n)); got != tc.want {
				t.Fatalf("userLanes = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestReplayLanesHangingLaneHoldsNoOther: with limit 1, a task of lane 1
// that never ends (until the scan stops) holds back lane 1's next task
// only: the own lane's tasks and lane 2's all run, in their order, while it
// hangs. The stop (ctx) then ends it, and lane 1's next task starts no
// replay (its call sees the stop).
func TestReplayLanesHangingLaneHoldsNoOther(t *testing.T) {
	t.Parallel()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var mu sync.Mutex
	var ran []int
	others, hanging := make(chan struct{}), make(chan struct{})
	left := 4 // the tasks of lanes 0 and 2
	err := make(chan error, 1)
	go func() {
		err <- replayLanes(ctx, 1, [][]int{{0, 1}, {2, 3}, {4, 5}}, func(ctx context.Context, i int) error {
			if ctx.Err() != nil {
				return nil
			}
			mu.Lock()
			ran = append(ran, i)
			if i != 2 && i != 3 {
				if left--; left == 0 {
					close(others)
				}
			}
			mu.Unlock()
			if i == 2 {
				close(hanging)
				<-ctx.Done() // a job that never ends, until the stop
			}
			return nil
		})
	}()
	deadline := time.After(30 * time.Second)
	for _, c := range []struct {
		done <-chan struct{}
		what string
	}{{others, "the other lanes waited behind lane 1's hanging task"}, {hanging, "lane 1's first task never started"}} {
		select {
		case <-c.done:
		case <-deadline:
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("ran %v: %s", ran, c.what)
		}
	}
	stop() // only once lane 1's task hangs: a stop before it starts would rightly skip it
	select {
	case e := <-err:
		if e != nil {
			t.Fatal(e)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("replayLanes did not return after the stop")
	}
	pos := map[int]int{}
	for k, i := range ran {
		pos[i] = k
	}
	if _, ok := pos[3]; ok || len(ran) != 5 || pos[0] > pos[1] || pos[4] > pos[5] {
		t.Fatalf("ran %v: want 0 before 1, 4 before 5, 2, and never 3", ran)
	}
}

// TestReplayLanesStopAfterError: once a task of one lane fails, no task
// starts in any lane; the error of the first failed lane is returned.
func TestReplayLanesStopAfterError(t *testing.T) {
	t.Parallel()
	failed, began := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var ran []int
	err := replayLanes(context.Background(), 1, [][]int{{0, 1}, {2}}, func(ctx context.Context, i int) error {
		mu.Lock()
		ran = append(ran, i)
		mu.Unlock()
		switch i {
		case 2:
			select { // fails once lane 0's first task has started
			case <-began:
			case <-time.After(30 * time.Second):
				return errors.New("lane 0 never ran beside lane 1")
			}
			close(failed)
			return errors.New("boom")
		case 0:
			close(began)
			select { // lane 0's first task ends only after lane 1's failed
			case <-failed:
			case <-time.After(30 * time.Second):
				return errors.New("lane 1 never ran beside lane 0")
			}
		}
		return nil
	})
	if err == nil || err.Error() != "boom" || len(ran) != 2 {
		t.Fatalf("ran %v, err %v; want 0 and 2, boom, and 1 never started", ran, err)
	}
}
