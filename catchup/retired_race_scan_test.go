package catchup

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// retireRaceWrite is a ledger on which `catchup forget job` (no --purge)
// commits at one exact moment of a scan: just after it listed the tasks
// (afterList: before readAgain), just after its first read of task "job"
// (afterRead: the scan's readAgain), or else just before the
// first write of the task as read (its paused or expired records, a fold,
// its watermark; with status set, its first records of that status),
// once the scan has read its runs. The task is retired,
// its missed slots recorded expired (reason retired), those of its pause
// paused.
type retireRaceWrite struct {
	store.Store
	t         *testing.T
	m         Machine
	afterList bool
	afterRead bool
	status    string
	retired   bool
}

func (r *retireRaceWrite) Tasks(ctx context.Context) ([]store.TaskSummary, error) {
	all, err := r.Store.Tasks(ctx)
	if !r.retired && r.afterList && err == nil {
		r.retire(ctx)
	}
	return all, err
}

func (r *retireRaceWrite) Task(ctx context.Context, name string) (store.Task, error) {
	t, err := r.Store.Task(ctx, name)
	if !r.retired && r.afterRead && name == "job" && err == nil {
		r.retire(ctx)
	}
	return t, err
}

func (r *retireRaceWrite) AddRunsOf(ctx context.Context, registered store.Of, runs []store.Run) ([]int64, error) {
	if !r.retired && !r.afterList && len(runs) > 0 && runs[0].Task == "job" && (r.status == "" || runs[0].Status == r.status) {
		r.retire(ctx)
	}
	return r.Store.AddRunsOf(ctx, registered, runs)
}

func (r *retireRaceWrite) SetSettledOf(ctx context.Context, task string, registered store.Of, through time.Time) error {
	if !r.retired && !r.afterList && r.status == "" && task == "job" {
		r.retire(ctx)
	}
	return r.Store.SetSettledOf(ctx, task, registered, through)
}

func (r *retireRaceWrite) retire(ctx context.Context) {
	r.retired = true
	if _, err := Forget(ctx, r.Store, r.m, ForgetRequest{Task: "job"}); err != nil {
		r.t.Fatalf("forget: %v", err)
	}
}

// retiredUntouched fails t unless what forget left of task "job" (its
// watermark was settled before) is all the ledger holds of it: the same
// watermark, one record at most a slot (the first fire, and forget's
// paused and expired ones, reason retired).
func retiredUntouched(t *testing.T, st store.Store, settled time.Time) {
	t.Helper()
	cur, err := st.Task(context.Background(), "job")
	if err != nil {
		t.Fatalf("task job: %v", err)
	}
	if cur.RetiredAt.IsZero() {
		t.Errorf("task job is not retired (registered as of %s); want it retired", rfc(cur.RegisteredAt))
	}
	if !cur.SettledThrough.Equal(settled) {
		t.Errorf("the retired task's watermark moved to %s; want %s, as forget left it", rfc(cur.SettledThrough), rfc(settled))
	}
	hist, err := st.History(context.Background(), store.HistoryFilter{Task: "job", Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	bySlot := map[int64][]store.Run{}
	for _, r := range hist {
		bySlot[r.Slot.Unix()] = append(bySlot[r.Slot.Unix()], r)
		if r.Status == store.StatusExpired && r.Reason != store.ReasonRetired {
			t.Errorf("run %d records slot %s expired (%s) after the task was retired; want only forget's (reason retired)", r.ID, rfc(r.Slot), r.Reason)
		}
	}
	again := 0 // slots recorded again
	for _, runs := range bySlot {
		if len(runs) > 1 {
			if again++; again == 1 {
				t.Errorf("slot %s has %d records (%s, %s): the retired task's slot recorded again", rfc(runs[0].Slot), len(runs), runs[0].Status, runs[1].Status)
			}
		}
	}
	if again > 1 {
		t.Errorf("%d slots of the retired task recorded again in all", again)
	}
}

// TestForgetAfterAScanReadTheTaskRecordsNothingOfIt: a `catchup forget`
// that commits after the scan read the task again (readAgain), before its
// paused and expired records and its watermark (just after the read, or
// once the scan read its runs), wins, as a purge then does, and so does
// one just before the read: the scan records none of the retired task's slots
// (forget recorded them, why), nor moves its watermark, and says once
// that the task was retired since it read it. Before, the scan recorded
// the slots of its pause paused a second time, and moved the retired
// task's watermark (past the slots its policy dropped; past those forget
// recorded).
func TestForgetAfterAScanReadTheTaskRecordsNothingOfIt(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		pausedFrom string // the task is paused from then
		policy     string
		afterList  bool // forget just before readAgain
		afterRead  bool // forget just after readAgain, else before the first write
	}{
		"paused":                   {pausedFrom: "2026-03-01T10:30:00Z"},
		"expired by replay latest": {policy: "latest"},
		"just after the read":      {afterRead: true},
		"just before the read":     {afterList: true},
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		for name, tc := range tests {
			t.Run(backend+"/"+name, func(t *testing.T) {
				ctx := context.Background()
				f, st := purgeRaceFixture(t, backend)
				if tc.pausedFrom != "" {
					if err := st.SetPause(ctx, "job", mustTime(t, tc.pausedFrom), time.Time{}); err != nil {
						t.Fatal(err)
					}
				}
				before, err := st.Task(ctx, "job")
				if err != nil {
					t.Fatal(err)
				}
				racing := &retireRaceWrite{Store: st, t: t, m: f.m, afterList: tc.afterList, afterRead: tc.afterRead}
				req := scanRequest()
				req.Replay = tc.policy
				rep, err := Scan(ctx, racing, f.m, req)
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				if !racing.retired {
					t.Fatal("the forget never came: the scan neither read the task again nor wrote it")
				}
				if runs := f.job.runs(t); len(runs) != 1 {
					t.Errorf("the job ran %q; want only the first fire", runs)
				}
				retiredUntouched(t, st, before.SettledThrough)
				want := "task job was retired since this scan read it (catchup forget, or its line gone): nothing recorded" // retiredUnrecordedWarning
				if len(rep.Tasks) != 1 || strings.Count(strings.Join(rep.Tasks[0].Warnings, "\n"), want) != 1 {
					t.Errorf("scan reported %+v; want the warning %q once", rep.Tasks, want)
				}
			})
		}
	}
}

// TestForgetDuringAPruneRecordsNothingOfIt: a `catchup forget` that
// commits after prune read the tasks, before it records their old slots
// paused or expired, wins: prune records nothing of the retired task
// (forget recorded its slots, why), and leaves it whole, saying why.
// Before, prune recorded the slots of its pause paused a second time.
func TestForgetDuringAPruneRecordsNothingOfIt(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f, st := purgeRaceFixture(t, backend)
			if err := st.SetPause(ctx, "job", mustTime(t, "2026-03-02T00:00:00Z"), time.Time{}); err != nil {
				t.Fatal(err)
			}
			before, err := st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-20T12:30:00Z") // the cut: 03-13 12:30; slots before it are older than the window
			racing := &retireRaceWrite{Store: st, t: t, m: f.m}
			req := PruneRequest{OlderThan: MinPruneAge, Keep: 1, beforeRecord: func() { racing.retire(ctx) }}
			got, err := Prune(ctx, st, f.m, req)
			if err != nil {
				t.Fatalf("Prune: %v", err)
			}
			retiredUntouched(t, st, before.SettledThrough)
			for _, r := range got.Recorded {
				if r.Task == "job" && r.Expired+r.Paused > 0 {
					t.Errorf("prune says it recorded %+v; want nothing of the retired task", r)
				}
			}
			if len(got.Left) != 1 || got.Left[0].Task != "job" || !strings.Contains(got.Left[0].Why, "retired since prune read it") {
				t.Errorf("prune left %+v; want task job, retired since prune read it", got.Left)
			}
		})
	}
}

// TestForgetBeforeALinesFoldsRecordsNone: a scan's coalesced replay of a
// crontab line records the gap's folds before the line runs; a `catchup
// forget` that commits after the scan read the task again, before those
// folds, wins: none is written (forget recorded those slots expired,
// reason retired), nothing runs, and the scan says once that the task
// was retired since it read it. Before, the folds were recorded beside
// forget's expiries, and the scan said only that the line was not
// replayed.
func TestForgetBeforeALinesFoldsRecordsNone(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			f := newRunFixture(t, "2026-03-01T10:00:30Z")
			var st store.Store = f.st
			if backend == "postgres" {
				st = testPostgres(t)
			}
			f.m.HomeDir = func(string) (string, error) { return f.job.dir, nil }
			req := scanRequest()
			req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader("0 * * * * catchup run --task job -- true\n")}}
			if _, err := Scan(ctx, st, f.m, req); err != nil { // registers the line
				t.Fatalf("registering scan: %v", err)
			}
			before, err := st.Task(ctx, "job")
			if err != nil {
				t.Fatal(err)
			}
			f.now = mustTime(t, "2026-03-01T15:30:00Z")
			racing := &retireRaceWrite{Store: st, t: t, m: f.m, status: store.StatusSkipped}
			req = scanRequest()
			req.Replay = "coalesce"
			rep, err := Scan(ctx, racing, f.m, req)
			if err != nil {
				t.Fatalf("coalescing scan: %v", err)
			}
			if !racing.retired {
				t.Fatal("the forget never came: the scan recorded no fold")
			}
			retiredUntouched(t, st, before.SettledThrough)
			want := "task job was retired since this scan read it (catchup forget, or its line gone): nothing recorded" // retiredUnrecordedWarning
			if len(rep.Tasks) != 1 || rep.Tasks[0].Replayed+rep.Tasks[0].Failed != 0 ||
				strings.Count(strings.Join(rep.Tasks[0].Warnings, "\n"), want) != 1 {
				t.Errorf("scan reported %+v; want nothing replayed, with the warning %q once", rep.Tasks, want)
			}
		})
	}
}
