// Package jobsup counts the jobs this process has running (the runner
// marks each from its start to its end, and the end ping that reports one,
// bounded by its own 10 s, counts as one), so that a stop of catchup can
// tell waiting for a job, which its --grace and the job's signals govern,
// from waiting for something that does not answer (a ledger, an open(2)
// of a FIFO): only the latter has a deadline (cmd's stop watch).
package jobsup

import "sync/atomic"

var (
	running atomic.Int64
	changes atomic.Uint64
)

// Started marks a job running; the func it returns marks it ended (once).
func Started() (ended func()) {
	running.Add(1)
	changes.Add(1)
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			running.Add(-1)
			changes.Add(1)
		}
	}
}

// Running is how many jobs are running, and a count that moves at every
// start and end: a caller that sees it unchanged knows no job started or
// ended in between.
func Running() (n int64, seq uint64) { return running.Load(), changes.Load() }
