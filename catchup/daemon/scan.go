package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/store"
)

// scan replays the task's missed slots through catchup's scan, those at or
// before upTo only: the later ones are its loop's to fire (zero: no bound);
// those at or before skipped (its loop skipped them) are missed at once.
// It says how it ended: scanSettled (none of them left missed),
// scanLeft (some skipped, cut short or left for later: the lock held),
// scanFailed (the ledger could not be read, or the daemon is stopping).
func (d *Daemon) scan(ctx context.Context, t Task, upTo, skipped time.Time) (ended int) {
	if !d.acquire(ctx) {
		return scanFailed
	}
	placed := true // false once stopped while waiting for its turn again (turns)
	defer func() {
		if placed {
			d.release()
		}
	}()
	if lost := store.LostRecords(d.cfg.Store); lost != "" {
		// A replay could run a slot whose run the ledger lost (its -wal
		// deleted): none until the mark is removed; the fires go on.
		if lost != d.lostSaid.Swap(lost) {
			d.cfg.Log.Error("scan: refusing to replay: "+lost, "event", "error", "task", t.Def.Name)
		}
		return scanFailed
	}
	p := d.plan(ctx)
	if p == nil {
		return scanFailed // stopped while waiting: the next start replays what is left
	}
	defer p.done()
	replays := &replayLog{d: d, task: t.Def.Name}
	var watch *ledgerWait
	m := d.machine(t, func(pid int) { watch.end(); replays.started(pid) })
	watch = d.watchLedger(&m, t.Def.Name, time.Time{})
	defer watch.end()
	maxReplays := d.cfg.MaxReplays
	if maxReplays <= 0 {
		maxReplays = 100
	}
	rule := d.cfg.Rule
	rule.FiringAfter = upTo
	if skipped.After(rule.FiredAfter) {
		rule.FiredAfter = skipped // no fire comes for them: --tolerance spares none
	}
	rep, err := catchup.Scan(ctx, d.cfg.Store, m, catchup.ScanRequest{Tasks: []string{t.Def.Name},
		MaxReplays: maxReplays, MissedRule: rule, Commands: map[string][]string{t.Def.Name: t.Req.Argv},
		NotifyCmds: map[string]string{t.Def.Name: t.Req.NotifyCmd}, Replays: d.turns(p.hooks(replays.hooks()), &placed), AlertNews: d.alertNews})
	if err != nil && ctx.Err() != nil {
		return scanFailed // stopped: the next start replays what is left
	}
	if errors.Is(err, catchup.ErrRetired) {
		return scanSettled // its line removed by a reload meanwhile (or forgotten): nothing to replay
	}
	if err != nil {
		d.cfg.Log.Error("scan: "+err.Error(), "event", "error", "task", t.Def.Name)
		return scanFailed
	}
	ended = scanSettled
	if rep.BootRecorded && rep.NotesKept == nil {
		// A scan that kept this host's notes of unrecorded fires (a ledger
		// whose disk took the boot's few bytes, not the notes' runs) does
		// not end the outage: the next fire would begin it again, each minute.
		d.ledgerRecords(t.Def.Name)
	}
	for _, w := range rep.Warnings {
		d.cfg.Log.Warn(w, "event", "warning", "task", t.Def.Name)
	}
	if rep.NotesKept != nil {
		d.cfg.Log.Warn(rep.NotesKept.Error(), "event", "warning", "task", t.Def.Name)
	}
	for _, ts := range rep.Tasks {
		if ts.Skipped > 0 || ts.Interrupted > 0 || ts.Left > 0 {
			ended = scanLeft
		}
		sayHeld := d.heldNews(ts.Task, ts.Held)
		sayBusy := d.busyNews(ts.Task, ts.Busy)
		sayAhead := d.aheadNews(ts.Task, ts.ClockAhead)
		sayRefused := ts.StartRefused.Why != "" && d.refusedNews(ts.Task, ts.StartRefused.Why)
		if ts.StartRefused.Why == "" && ts.Replayed+ts.Failed+ts.Interrupted > 0 {
			d.refusedNews(ts.Task, "") // its replays started: a refusal after this is said again
		}
		for _, w := range ts.Warnings {
			if w == ts.Held.Warning && !sayHeld || w == ts.Busy.Warning && !sayBusy ||
				w == ts.StartRefused.Warning && !sayRefused || w == ts.AheadSaid && !sayAhead {
				continue // said already: the same slot, the same holder (or the lock still held), the same refusal, the same time ahead
			}
			d.cfg.Log.Warn(w, "event", "warning", "task", t.Def.Name)
		}
		if len(ts.Missed) > 0 {
			level := slog.LevelInfo
			if ts.Failed > 0 {
				level = slog.LevelWarn
			}
			d.cfg.Log.Log(ctx, level, "replayed missed slots", "event", "scan", "task", ts.Task, "missed", len(ts.Missed),
				"replayed", ts.Replayed, "failed", ts.Failed, "skipped", ts.Skipped, "interrupted", ts.Interrupted, "expired", ts.Expired,
				"paused", ts.Paused, "left", ts.Left) // left: for the next scan (the next rescan, or start)
		}
	}
	return ended
}

// saidOnce holds the last message said of a kind.
type saidOnce struct {
	mu   sync.Mutex
	last string
}

// Swap makes msg the last one said and returns the one before.
func (s *saidOnce) Swap(msg string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.last
	s.last = msg
	return prev
}
