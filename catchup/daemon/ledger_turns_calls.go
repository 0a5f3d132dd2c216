package daemon

import (
	"context"
	"time"

	"github.com/catchup/catchup/store"
)

// ledgerTurns's store.Store: each method is the ledger's, in its turn
// (ledger_turns.go); Finish, Claim, Shared and Close are there.

func (l *ledgerTurns) UpsertTask(ctx context.Context, t store.Task) error {
	return inTurn(ctx, l, false, func() error { return l.st.UpsertTask(ctx, t) })
}

func (l *ledgerTurns) UpsertTaskOf(ctx context.Context, of store.Of, t store.Task) error {
	return inTurn(ctx, l, false, func() error { return l.st.UpsertTaskOf(ctx, of, t) })
}

func (l *ledgerTurns) Task(ctx context.Context, name string) (store.Task, error) {
	return inTurn1(ctx, l, func() (store.Task, error) { return l.st.Task(ctx, name) })
}

func (l *ledgerTurns) Tasks(ctx context.Context) ([]store.TaskSummary, error) {
	return inTurn1(ctx, l, func() ([]store.TaskSummary, error) { return l.st.Tasks(ctx) })
}

func (l *ledgerTurns) AddRun(ctx context.Context, r store.Run) (int64, error) {
	return inTurn1(ctx, l, func() (int64, error) { return l.st.AddRun(ctx, r) })
}

func (l *ledgerTurns) AddRuns(ctx context.Context, runs []store.Run) ([]int64, error) {
	return inTurn1(ctx, l, func() ([]int64, error) { return l.st.AddRuns(ctx, runs) })
}

func (l *ledgerTurns) AddRunsOf(ctx context.Context, of store.Of, runs []store.Run) ([]int64, error) {
	return inTurn1(ctx, l, func() ([]int64, error) { return l.st.AddRunsOf(ctx, of, runs) })
}

func (l *ledgerTurns) Interrupt(ctx context.Context, id int64, at time.Time, reason string) (bool, error) {
	return inTurn1(ctx, l, func() (bool, error) { return l.st.Interrupt(ctx, id, at, reason) })
}

func (l *ledgerTurns) GiveBack(ctx context.Context, ids []int64, o store.Outcome) error {
	return inTurn(ctx, l, false, func() error { return l.st.GiveBack(ctx, ids, o) })
}

func (l *ledgerTurns) SetSettled(ctx context.Context, task string, through time.Time) error {
	return inTurn(ctx, l, false, func() error { return l.st.SetSettled(ctx, task, through) })
}

func (l *ledgerTurns) SetSettledOf(ctx context.Context, task string, of store.Of, through time.Time) error {
	return inTurn(ctx, l, false, func() error { return l.st.SetSettledOf(ctx, task, of, through) })
}

func (l *ledgerTurns) SetProgress(ctx context.Context, id int64, percent int, note string) error {
	return inTurn(ctx, l, false, func() error { return l.st.SetProgress(ctx, id, percent, note) })
}

func (l *ledgerTurns) LastCheckpoint(ctx context.Context, task string, slot time.Time) (string, bool, error) {
	return inTurn2(ctx, l, func() (string, bool, error) { return l.st.LastCheckpoint(ctx, task, slot) })
}

func (l *ledgerTurns) StatusCounts(ctx context.Context) (map[string]map[string]int64, error) {
	return inTurn1(ctx, l, func() (map[string]map[string]int64, error) { return l.st.StatusCounts(ctx) })
}

func (l *ledgerTurns) StatusCount(ctx context.Context, task, status string) (int64, error) {
	return inTurn1(ctx, l, func() (int64, error) { return l.st.StatusCount(ctx, task, status) })
}

func (l *ledgerTurns) ExpiredCounts(ctx context.Context) (map[string]map[string]int64, error) {
	return inTurn1(ctx, l, func() (map[string]map[string]int64, error) { return l.st.ExpiredCounts(ctx) })
}

func (l *ledgerTurns) LastFailures(ctx context.Context) (map[string]time.Time, error) {
	return inTurn1(ctx, l, func() (map[string]time.Time, error) { return l.st.LastFailures(ctx) })
}

func (l *ledgerTurns) SeeBoot(ctx context.Context, b store.Boot) error {
	return inTurn(ctx, l, false, func() error { return l.st.SeeBoot(ctx, b) })
}

func (l *ledgerTurns) Boots(ctx context.Context, host string) ([]store.Boot, error) {
	return inTurn1(ctx, l, func() ([]store.Boot, error) { return l.st.Boots(ctx, host) })
}

func (l *ledgerTurns) ResetClock(ctx context.Context, req store.ClockReset) (store.ClockResetResult, error) {
	return inTurn1(ctx, l, func() (store.ClockResetResult, error) { return l.st.ResetClock(ctx, req) })
}

func (l *ledgerTurns) Prune(ctx context.Context, req store.PruneRequest) (store.PruneResult, error) {
	return inTurn1(ctx, l, func() (store.PruneResult, error) { return l.st.Prune(ctx, req) })
}

func (l *ledgerTurns) Run(ctx context.Context, id int64) (store.Run, error) {
	return inTurn1(ctx, l, func() (store.Run, error) { return l.st.Run(ctx, id) })
}

func (l *ledgerTurns) History(ctx context.Context, f store.HistoryFilter) ([]store.Run, error) {
	return inTurn1(ctx, l, func() ([]store.Run, error) { return l.st.History(ctx, f) })
}

func (l *ledgerTurns) Running(ctx context.Context) ([]store.Run, error) {
	return inTurn1(ctx, l, func() ([]store.Run, error) { return l.st.Running(ctx) })
}

func (l *ledgerTurns) SlotRuns(ctx context.Context, task string, from, to time.Time, grace time.Duration) ([]store.Run, error) {
	return inTurn1(ctx, l, func() ([]store.Run, error) { return l.st.SlotRuns(ctx, task, from, to, grace) })
}

func (l *ledgerTurns) LatestSlot(ctx context.Context, task string) (time.Time, error) {
	return inTurn1(ctx, l, func() (time.Time, error) { return l.st.LatestSlot(ctx, task) })
}

func (l *ledgerTurns) LatestListedSlot(ctx context.Context, task string) (time.Time, error) {
	return inTurn1(ctx, l, func() (time.Time, error) { return l.st.LatestListedSlot(ctx, task) })
}

func (l *ledgerTurns) LatestRan(ctx context.Context, task string) (*store.Run, error) {
	return inTurn1(ctx, l, func() (*store.Run, error) { return l.st.LatestRan(ctx, task) })
}

func (l *ledgerTurns) LastSucceededSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	return inTurn1(ctx, l, func() (time.Time, error) { return l.st.LastSucceededSlot(ctx, task, before) })
}

func (l *ledgerTurns) LastPausedSlot(ctx context.Context, task string, before time.Time) (time.Time, error) {
	return inTurn1(ctx, l, func() (time.Time, error) { return l.st.LastPausedSlot(ctx, task, before) })
}

func (l *ledgerTurns) PrunedSlots(ctx context.Context, task string, from, to time.Time) ([]time.Time, error) {
	return inTurn1(ctx, l, func() ([]time.Time, error) { return l.st.PrunedSlots(ctx, task, from, to) })
}

func (l *ledgerTurns) ResolveZone(ctx context.Context, task, tz string) (bool, error) {
	return inTurn1(ctx, l, func() (bool, error) { return l.st.ResolveZone(ctx, task, tz) })
}

func (l *ledgerTurns) EarliestRun(ctx context.Context, task string) (time.Time, error) {
	return inTurn1(ctx, l, func() (time.Time, error) { return l.st.EarliestRun(ctx, task) })
}

func (l *ledgerTurns) LockTask(ctx context.Context, tl store.TaskLock) (func(), bool, error) {
	return inTurn2(ctx, l, func() (func(), bool, error) { return l.st.LockTask(ctx, tl) })
}

func (l *ledgerTurns) Heartbeat(ctx context.Context, id int64, at time.Time) error {
	return inTurn(ctx, l, false, func() error { return l.st.Heartbeat(ctx, id, at) })
}

func (l *ledgerTurns) Backup(ctx context.Context, dest string) error {
	return inTurn(ctx, l, false, func() error { return l.st.Backup(ctx, dest) })
}

func (l *ledgerTurns) Forget(ctx context.Context, task string, at time.Time, purge bool) (int64, error) {
	return inTurn1(ctx, l, func() (int64, error) { return l.st.Forget(ctx, task, at, purge) })
}

func (l *ledgerTurns) SetPause(ctx context.Context, task string, from, until time.Time) error {
	return inTurn(ctx, l, false, func() error { return l.st.SetPause(ctx, task, from, until) })
}

func (l *ledgerTurns) UnsettlePaused(ctx context.Context, task string, from time.Time) (int64, time.Time, error) {
	return inTurn2(ctx, l, func() (int64, time.Time, error) { return l.st.UnsettlePaused(ctx, task, from) })
}

func (l *ledgerTurns) Backdate(ctx context.Context, task string, from time.Time) (bool, error) {
	return inTurn1(ctx, l, func() (bool, error) { return l.st.Backdate(ctx, task, from) })
}

func (l *ledgerTurns) LastFire(ctx context.Context, task string) (time.Time, error) {
	return inTurn1(ctx, l, func() (time.Time, error) { return l.st.LastFire(ctx, task) })
}

func (l *ledgerTurns) SetStarted(ctx context.Context, id int64, at time.Time) (bool, error) {
	return inTurn1(ctx, l, func() (bool, error) { return l.st.SetStarted(ctx, id, at) })
}

func (l *ledgerTurns) LatestSlots(ctx context.Context) (map[string]time.Time, error) {
	return inTurn1(ctx, l, func() (map[string]time.Time, error) { return l.st.LatestSlots(ctx) })
}

func (l *ledgerTurns) LatestListedSlots(ctx context.Context, tasks []string) (map[string]time.Time, error) {
	return inTurn1(ctx, l, func() (map[string]time.Time, error) { return l.st.LatestListedSlots(ctx, tasks) })
}

func (l *ledgerTurns) LatestRans(ctx context.Context, tasks []string) (map[string]*store.Run, error) {
	return inTurn1(ctx, l, func() (map[string]*store.Run, error) { return l.st.LatestRans(ctx, tasks) })
}

func (l *ledgerTurns) LastFires(ctx context.Context) (map[string]time.Time, error) {
	return inTurn1(ctx, l, func() (map[string]time.Time, error) { return l.st.LastFires(ctx) })
}

func (l *ledgerTurns) StatusCountByTask(ctx context.Context, status string) (map[string]int64, error) {
	return inTurn1(ctx, l, func() (map[string]int64, error) { return l.st.StatusCountByTask(ctx, status) })
}

func (l *ledgerTurns) BootsOf(ctx context.Context, hosts []string) (map[string][]store.Boot, error) {
	return inTurn1(ctx, l, func() (map[string][]store.Boot, error) { return l.st.BootsOf(ctx, hosts) })
}

func (l *ledgerTurns) FirstFires(ctx context.Context, tasks, hosts []string) (map[string]map[string]time.Time, error) {
	return inTurn1(ctx, l, func() (map[string]map[string]time.Time, error) { return l.st.FirstFires(ctx, tasks, hosts) })
}

func (l *ledgerTurns) BootHosts(ctx context.Context) ([]string, error) {
	return inTurn1(ctx, l, func() ([]string, error) { return l.st.BootHosts(ctx) })
}

func (l *ledgerTurns) SlotRunsOf(ctx context.Context, ranges []store.SlotRange, grace time.Duration, fn func(i int, runs []store.Run) error) error {
	return inTurn(ctx, l, false, func() error { return l.st.SlotRunsOf(ctx, ranges, grace, fn) })
}
