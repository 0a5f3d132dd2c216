package catchup

import (
	"context"
	"sync"
	"sync/atomic"
)

// userLanes splits a scan's n tasks (srs[i] replays tasks[i]; nil srs: all
// its own) into lanes, each in the tasks' (name) order: first the scanning
// user's own tasks, then, in a root scan, one lane per other user (by uid)
// with that user's crontab lines, in the order of their first task. A line
// of another user's runs as long as that user likes: replayed one task
// after another (--concurrency 1, the boot scan's), a job of theirs that
// never ended held root's own replays back (when the task's name put it
// first, `0-first`), then every later user's lines, for good.
func userLanes(srs []*shellReplay, n int) [][]int {
	lanes := [][]int{make([]int, 0, n)}
	lane := map[string]int{} // a uid's lane in lanes
	for i := range n {
		if i >= len(srs) || srs[i] == nil || srs[i].as == nil {
			lanes[0] = append(lanes[0], i)
			continue
		}
		uid := srs[i].as.Uid
		l, ok := lane[uid]
		if !ok {
			l = len(lanes)
			lane[uid] = l
			lanes = append(lanes, nil)
		}
		lanes[l] = append(lanes[l], i)
	}
	return lanes
}

// replayLanes calls replay(ctx, i) for every task index i of lanes, the
// lanes at once: the first (the scanning user's own tasks) up to limit of
// its tasks at once (ReplayTasks), each other lane (another user's lines)
// one task at a time, in its order, beside them and not counted against
// limit: a user's job that never ends holds back only that user's later
// lines, never root's nor another user's. A task's own slots still run one
// after another, oldest first, in its call.
//
// After a call returns an error no further task starts, in any lane;
// replayLanes waits for the calls already running and returns the error of
// the first lane (in lanes' order) that failed.
func replayLanes(ctx context.Context, limit int, lanes [][]int, replay func(ctx context.Context, i int) error) error {
	var failed atomic.Bool
	errs := make([]error, len(lanes))
	var wg sync.WaitGroup
	for l, lane := range lanes {
		lim := 1
		if l == 0 {
			lim = limit
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[l] = ReplayTasks(ctx, lim, len(lane), func(ctx context.Context, k int) error {
				if failed.Load() {
					return nil // another lane's task failed: this one does not start
				}
				err := replay(ctx, lane[k])
				if err != nil {
					failed.Store(true)
				}
				return err
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
