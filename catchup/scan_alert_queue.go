package catchup

// alertQueue runs scan's missed-slot alerts beside the replays: each lane
// of tasks (userLanes) has its own queue, which runs the alerts of its tasks
// one at a time, in the lane's order (the task names'), while the lane's
// replays go on. A slow alert (a pager that takes its 30 s to answer) so
// holds back no replay: before, it ran in the replay's lane, and the next
// task's replays waited behind it, past the --budget, left for the next
// scan. Scan ends once every alert sent has run.
type alertQueue struct {
	alerts [][]chan func() // per lane, per task of it: its alert, or closed without one
	at     map[int][2]int  // a task's index: its lane and its place in it
	done   []chan struct{}
}

// startAlertQueue starts a queue for lanes (task indices, as userLanes
// makes them), one goroutine per lane.
func startAlertQueue(lanes [][]int) *alertQueue {
	q := &alertQueue{alerts: make([][]chan func(), len(lanes)), at: map[int][2]int{},
		done: make([]chan struct{}, len(lanes))}
	for l, lane := range lanes {
		q.alerts[l] = make([]chan func(), len(lane))
		for k, i := range lane {
			q.alerts[l][k] = make(chan func(), 1)
			q.at[i] = [2]int{l, k}
		}
		q.done[l] = make(chan struct{})
		go func() {
			defer close(q.done[l])
			for _, c := range q.alerts[l] {
				if alert, ok := <-c; ok {
					alert()
				}
			}
		}()
	}
	return q
}

// send queues task i's alert. Called once per task at most, from the
// task's replay call, before finish.
func (q *alertQueue) send(i int, alert func()) {
	at := q.at[i]
	c := q.alerts[at[0]][at[1]]
	c <- alert
	close(c)
}

// finish waits for the alerts sent, once no more can be: the tasks whose
// alert was not sent (never started: a stop, a fault) have none. scanned
// tells which tasks were sent theirs.
func (q *alertQueue) finish(scanned []bool) {
	for i, at := range q.at {
		if !scanned[i] {
			close(q.alerts[at[0]][at[1]])
		}
	}
	for _, d := range q.done {
		<-d
	}
}
