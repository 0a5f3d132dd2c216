package daemon

import (
	"time"

	"github.com/catchup/catchup/catchup"
)

// A daemon rescans every minute (--rescan). A task whose scan records
// nothing, its slots left missed as they were (--replay none keeps them
// missed until they leave the window; a lock held leaves them for later),
// would be alerted at each rescan: one outage paged for 7 days, every
// minute. It is alerted once per set of missed slots (its event=scan line
// is still logged at each rescan): again when a slot is missed since, when
// the set shrinks, or after a restart (a new daemon has said nothing yet).

// missedKey is what a task's missed slots were when they were last said.
type missedKey struct {
	n           int
	first, last time.Time
}

// recorded reports whether scan ts recorded anything that is news: a
// replay that ran, an expiry or a pause, alerted whatever was alerted
// before. Not a skip: the slots a replay folds come with that replay, and
// a replay that found the task's lock held (skipped, exit 75) is recorded
// at each rescan while a long job holds it, its slots left as they were.
func recorded(ts catchup.TaskScan) bool {
	return ts.Replayed+ts.Failed+ts.Interrupted+ts.Expired+ts.Paused > 0
}

// alertNews is the daemon's catchup.ScanRequest.AlertNews: true when ts
// recorded something, or its missed slots are not those last alerted. It
// keeps them as said.
func (d *Daemon) alertNews(ts catchup.TaskScan) bool {
	k := missedKey{n: len(ts.Missed)}
	if k.n > 0 {
		k.first, k.last = ts.Missed[0], ts.Missed[k.n-1]
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	news := k.n == 0 || recorded(ts) || d.alerted[ts.Task] != k
	if k.n == 0 {
		delete(d.alerted, ts.Task)
	} else {
		d.alerted[ts.Task] = k
	}
	return news
}
