package cmd

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// reopening's store.Store: each method is its current ledger's (daemon_ledger.go).

func (rl *reopening) UpsertTask(ctx context.Context, t store.Task) error {
	return call(ctx, rl, func(st store.Store) error { return st.UpsertTask(ctx, t) })
}

func (rl *reopening) UpsertTaskOf(ctx context.Context, of store.Of, t store.Task) error {
	return call(ctx, rl, func(st store.Store) error { return st.UpsertTaskOf(ctx, of, t) })
}

func (rl *reopening) Task(ctx context.Context, name string) (store.Task, error) {
	return call1(ctx, rl, func(st store.Store) (store.Task, error) { return st.Task(ctx, name) })
}

func (rl *reopening) Tasks(ctx context.Context) ([]store.TaskSummary, error) {
	return call1(ctx, rl, func(st store.Store) ([]store.TaskSummary, error) { return st.Tasks(ctx) })
}

func (rl *reopening) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	return call1(ctx, rl, func(st store.Store) (store.ClaimResult, error) { return st.Claim(ctx, req) })
}

func (rl *reopening) AddRun(ctx context.Context, r store.Run) (int64, error) {
	return call1(ctx, rl, func(st store.Store) (int64, error) { return st.AddRun(ctx, r) })
}

func (rl *reopening) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	return call1(ctx, rl, func(st store.Store) ([]int64, error) { return st.AddRuns(ctx, runs) })
}

func (rl *reopening) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	return call1(ctx, rl, func(st store.Store) ([]int64, error) { return st.AddRunsOf(ctx, of, runs) })
}

func (rl *reopening) Finish(ctx context.Context, id int64, o store.Outcome) error {
	return call(ctx, rl, func(st store.Store) error { return st.Finish(ctx, id, o) })
}

func (rl *reopening) Interrupt(ctx context.Context, id int64, at time.Time, reason string) (bool, error) {
	return call1(ctx, rl, func(st store.Store) (bool, error) { return st.Interrupt(ctx, id, at, reason) })
}

func (rl *reopening) GiveBack(ctx context.Context, ids []int64, o store.Outcome) error {
	return call(ctx, rl, func(st store.Store) error { return st.GiveBack(ctx, ids, o) })
}

func (rl *reopening) SetSettled(ctx context.Context, task string, through time.Time) error {
	return call(ctx, rl, func(st store.Store) error { return st.SetSettled(ctx, task, through) })
}

func (rl *reopening) SetSettledOf(ctx context.Context, task string, of store.Of, through time.Time) error {
	return call(ctx, rl, func(st store.Store) error { return st.SetSettledOf(ctx, task, of, through) })
}

func (rl *reopening) SetProgress(ctx context.Context, id int64, percent int, note string) error {
	return call(ctx, rl, func(st store.Store) error { return st.SetProgress(ctx, id, percent, note) })
}

func (rl *reopening) LastCheckpoint(ctx context.Context, task string, slot time.Time) (string, bool, error) {
	return call2(ctx, rl, func(st store.Store) (string, bool, error) { return st.LastCheckpoint(ctx, task, slot) })
}

func (rl *reopening) StatusCounts(ctx context.Context) (map[string]map[string]int64, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]map[string]int64, error) { return st.StatusCounts(ctx) })
}

func (rl *reopening) StatusCount(ctx context.Context, task, status string) (int64, error) {
	return call1(ctx, rl, func(st store.Store) (int64, error) { return st.StatusCount(ctx, task, status) })
}

func (rl *reopening) ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]map[string]int64, error) { return st.ExpiredCounts(ctx) })
}

func (rl *reopening) LastFailures(ctx context.Context) (map[string]time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]time.Time, error) { return st.LastFailures(ctx) })
}

func (rl *reopening) SeeBoot(ctx context.Context, b store.Boot) error {
	return call(ctx, rl, func(st store.Store) error { return st.SeeBoot(ctx, b) })
}

func (rl *reopening) Boots(ctx context.Context, host string) ([]store.Boot, error) {
	return call1(ctx, rl, func(st store.Store) ([]store.Boot, error) { return st.Boots(ctx, host) })
}

func (rl *reopening) ResetClock(ctx context.Context, req store.ClockReset) (store.ClockResetResult, error) {
	return call1(ctx, rl, func(st store.Store) (store.ClockResetResult, error) { return st.ResetClock(ctx, req) })
}

func (rl *reopening) Prune(ctx context.Context, req store.PruneRequest) (store.PruneResult, error) {
	return call1(ctx, rl, func(st store.Store) (store.PruneResult, error) { return st.Prune(ctx, req) })
}

func (rl *reopening) Run(ctx context.Context, id int64) (store.Run, error) {
	return call1(ctx, rl, func(st store.Store) (store.Run, error) { return st.Run(ctx, id) })
}

func (rl *reopening) History(ctx context.Context, f store.HistoryFilter) ([]store.Run, error) {
	return call1(ctx, rl, func(st store.Store) ([]store.Run, error) { return st.History(ctx, f) })
}

func (rl *reopening) Running(ctx context.Context) ([]store.Run, error) {
	return call1(ctx, rl, func(st store.Store) ([]store.Run, error) { return st.Running(ctx) })
}

func (rl *reopening) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	return call1(ctx, rl, func(st store.Store) ([]store.Run, error) { return st.SlotRuns(ctx, task, from, to, grace) })
}

func (rl *reopening) LatestSlot(ctx context.Context, task string) (time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (time.Time, error) { return st.LatestSlot(ctx, task) })
}

func (rl *reopening) LatestListedSlot(ctx context.Context, task string) (time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (time.Time, error) { return st.LatestListedSlot(ctx, task) })
}

func (rl *reopening) LatestRan(ctx context.Context, task string) (*store.Run, error) {
	return call1(ctx, rl, func(st store.Store) (*store.Run, error) { return st.LatestRan(ctx, task) })
}

func (rl *reopening) LastSucceededSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (time.Time, error) { return st.LastSucceededSlot(ctx, task, before) })
}

func (rl *reopening) LastPausedSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (time.Time, error) { return st.LastPausedSlot(ctx, task, before) })
}

func (rl *reopening) PrunedSlots(ctx context.Context, task string, from, to time.Time) ([]time.Time, error) {
	return call1(ctx, rl, func(st store.Store) ([]time.Time, error) { return st.PrunedSlots(ctx, task, from, to) })
}

func (rl *reopening) ResolveZone(ctx context.Context, task, tz string) (bool, error) {
	return call1(ctx, rl, func(st store.Store) (bool, error) { return st.ResolveZone(ctx, task, tz) })
}

func (rl *reopening) EarliestRun(ctx context.Context, task string) (time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (time.Time, error) { return st.EarliestRun(ctx, task) })
}

func (rl *reopening) LockTask(ctx context.Context, l store.TaskLock) (func(), bool, error) {
	return call2(ctx, rl, func(st store.Store) (func(), bool, error) { return st.LockTask(ctx, l) })
}

func (rl *reopening) Heartbeat(ctx context.Context, id int64, at time.Time) error {
	return call(ctx, rl, func(st store.Store) error { return st.Heartbeat(ctx, id, at) })
}

func (rl *reopening) Backup(ctx context.Context, dest string) error {
	return call(ctx, rl, func(st store.Store) error { return st.Backup(ctx, dest) })
}

func (rl *reopening) Forget(ctx context.Context, task string, at time.Time, purge bool) (int64, error) {
	return call1(ctx, rl, func(st store.Store) (int64, error) { return st.Forget(ctx, task, at, purge) })
}

func (rl *reopening) SetPause(ctx context.Context, task string, from, until time.Time) error {
	return call(ctx, rl, func(st store.Store) error { return st.SetPause(ctx, task, from, until) })
}

func (rl *reopening) UnsettlePaused(ctx context.Context, task string, from time.Time) (int64, time.Time, error) {
	return call2(ctx, rl, func(st store.Store) (int64, time.Time, error) { return st.UnsettlePaused(ctx, task, from) })
}

func (rl *reopening) Backdate(ctx context.Context, task string, from time.Time) (bool, error) {
	return call1(ctx, rl, func(st store.Store) (bool, error) { return st.Backdate(ctx, task, from) })
}

func (rl *reopening) LastFire(ctx context.Context, task string) (time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (time.Time, error) { return st.LastFire(ctx, task) })
}

func (rl *reopening) SetStarted(ctx context.Context, id int64, at time.Time) (bool, error) {
	return call1(ctx, rl, func(st store.Store) (bool, error) { return st.SetStarted(ctx, id, at) })
}

func (rl *reopening) LatestSlots(ctx context.Context) (map[string]time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]time.Time, error) { return st.LatestSlots(ctx) })
}

func (rl *reopening) LatestListedSlots(ctx context.Context, tasks []string) (map[string]time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]time.Time, error) { return st.LatestListedSlots(ctx, tasks) })
}

func (rl *reopening) LatestRans(ctx context.Context, tasks []string) (map[string]*store.Run, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]*store.Run, error) { return st.LatestRans(ctx, tasks) })
}

func (rl *reopening) LastFires(ctx context.Context) (map[string]time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]time.Time, error) { return st.LastFires(ctx) })
}

func (rl *reopening) StatusCountByTask(ctx context.Context, status string) (map[string]int64, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]int64, error) { return st.StatusCountByTask(ctx, status) })
}

func (rl *reopening) BootsOf(ctx context.Context, hosts []string) (map[string][]store.Boot, error) {
	return call1(ctx, rl, func(st store.Store) (map[string][]store.Boot, error) { return st.BootsOf(ctx, hosts) })
}

func (rl *reopening) FirstFires(ctx context.Context, tasks, hosts []string) (map[string]map[string]time.Time, error) {
	return call1(ctx, rl, func(st store.Store) (map[string]map[string]time.Time, error) { return st.FirstFires(ctx, tasks, hosts) })
}

func (rl *reopening) BootHosts(ctx context.Context) ([]string, error) {
	return call1(ctx, rl, func(st store.Store) ([]string, error) { return st.BootHosts(ctx) })
}

func (rl *reopening) SlotRunsOf(ctx context.Context, ranges []store.SlotRange, grace time.Duration, fn func(i int, runs []store.Run) error) error {
	return call(ctx, rl, func(st store.Store) error { return st.SlotRunsOf(ctx, ranges, grace, fn) })
}
