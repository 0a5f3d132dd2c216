package store

import (
	"context"
	"time"
)

// SlotRange is one task's range for SlotRunsOf: the runs that
// SlotRuns(Task, From, To, grace) returns.
type SlotRange struct {
	Task     string
	From, To time.Time
}

// BatchReads are the reads the readers (ls, metrics, calendar, scan
// --dry-run, prune's look at the missed slots) make of every task: each is
// one statement whatever the number of tasks, so that on a shared ledger
// it costs one round trip, not one per task. Each returns, for each task,
// what the per-task read it is named after returns; a task that read
// returns zero for (no slot, no fire, no run, no count) may be left out of
// the map, where a lookup reads the same.
type BatchReads interface {
	// LatestSlots returns LatestSlot of every task of the ledger.
	LatestSlots(ctx context.Context) (map[string]time.Time, error)
	// LatestListedSlots returns LatestListedSlot of each of tasks.
	LatestListedSlots(ctx context.Context, tasks []string) (map[string]time.Time, error)
	// LatestRans returns LatestRan of each of tasks.
	LatestRans(ctx context.Context, tasks []string) (map[string]*Run, error)
	// LastFires returns LastFire of every task of the ledger.
	LastFires(ctx context.Context) (map[string]time.Time, error)
	// StatusCountByTask returns StatusCount(task, status) of every task of
	// the ledger: one seek of the (task, status) index per task.
	StatusCountByTask(ctx context.Context, status string) (map[string]int64, error)
	// BootsOf returns Boots of each of hosts.
	BootsOf(ctx context.Context, hosts []string) (map[string][]Boot, error)
	// FirstFires returns, for each of tasks that has any, when each of
	// hosts first fired it: the earliest slot (for a run without one, its
	// start) of the task's runs triggered by the schedule
	// (TriggerSchedule) that host recorded. Replays, backfills and runs by
	// hand are no fires. Each (task, host) is one walk of the task's runs
	// in slot order that stops at that host's first fire: a host that
	// fired the task early costs a few index entries, one that never did
	// the task's runs.
	FirstFires(ctx context.Context, tasks, hosts []string) (map[string]map[string]time.Time, error)
	// BootHosts returns every host whose boots the ledger holds.
	BootHosts(ctx context.Context) ([]string, error)
	// SlotRunsOf calls fn once for each of ranges, in their order, with
	// its index and what SlotRuns(r.Task, r.From, r.To, grace) returns
	// (nil when none), each range's runs read as fn takes them: one
	// range's runs are held at a time, however many the ranges hold. On a
	// shared ledger the statement is still being read while fn runs: a
	// call fn makes to the Store takes a connection of its own. An error
	// fn returns ends the read and is returned as it is.
	SlotRunsOf(ctx context.Context, ranges []SlotRange, grace time.Duration, fn func(i int, runs []Run) error) error
}

// EarlierFire is the earlier of a host's first fire of a task by slot
// and its first fire without one (by its start), either zero for none;
// false when both are.
func EarlierFire(bySlot, byStart time.Time) (time.Time, bool) {
	switch {
	case bySlot.IsZero() && byStart.IsZero():
		return time.Time{}, false
	case bySlot.IsZero() || (!byStart.IsZero() && byStart.Before(bySlot)):
		return byStart, true
	}
	return bySlot, true
}
