package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
)

// scansAtOnce bounds the scans that plan at once: those reading the ledger
// for their task's missed slots, before their first replay starts. The
// loops of every task rescan together (at start, after a reload, each
// --rescan): unbounded, thousands of scans queued on the ledger, and a
// fire, /metrics or a stop waited behind them all. Replays are not held
// to it (--concurrency bounds them): a long replay keeps no other task's
// scan waiting.
const scansAtOnce = 4

// planning is one scan's place among the scans that plan at once, given
// back once it has planned, as its first replay starts, or as it ends,
// whichever comes first.
type planning struct {
	once    sync.Once
	planned chan struct{}
}

// plan waits for a place among the planning scans; nil when ctx ends first.
func (d *Daemon) plan(ctx context.Context) *planning {
	select {
	case d.planners <- struct{}{}:
		if ctx.Err() != nil {
			<-d.planners
			return nil
		}
		return &planning{planned: d.planners}
	case <-ctx.Done():
		return nil
	}
}

// done gives the place back; later calls do nothing.
func (p *planning) done() { p.once.Do(func() { <-p.planned }) }

// hooks are h, the place given back once the scan has planned (before its
// replays and its alert: a slow --notify-cmd keeps no other task's scan,
// nor so that task's fires, waiting), or as the first replay starts.
func (p *planning) hooks(h catchup.ReplayHooks) catchup.ReplayHooks {
	planned, start := h.Planned, h.Start
	h.Planned = func(task string) {
		p.done()
		if planned != nil {
			planned(task)
		}
	}
	h.Start = func(task string, slot time.Time) {
		p.done()
		if start != nil {
			start(task, slot)
		}
	}
	return h
}
