package catchup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// MigrateSource is the host's SQLite ledger that migrate copies.
type MigrateSource interface {
	store.Store
	ExportRuns(ctx context.Context, afterID int64, limit int) ([]store.Run, error)
	ExportPrunedSlots(ctx context.Context) ([]store.PrunedSlot, error)
	ExportBoots(ctx context.Context) ([]store.Boot, error)
}

// MigrateTarget is the shared ledger that migrate copies into.
type MigrateTarget interface {
	Task(ctx context.Context, name string) (store.Task, error)
	Import(ctx context.Context, origin string, tasks []store.Task, runs []store.Run) (int, error)
	RunsElsewhere(ctx context.Context, task, origin, host string) (bool, error)
	ImportPrunedSlots(ctx context.Context, slots []store.PrunedSlot) error
	ImportBoots(ctx context.Context, boots []store.Boot) error
}

// Migration is one checked `catchup migrate`.
type Migration struct {
	From     MigrateSource
	FromPath string // the source's absolute path: with the host, it tags every copied run
	To       MigrateTarget
	ToWhere  string // the target, fit to print (no credentials)
}

// Migrated counts what Migrate copied.
type Migrated struct {
	Tasks    int // tasks of the source
	NewTasks int // tasks of the source the target did not hold yet
	Runs     int // runs of the source
	Imported int // runs the target did not hold yet
}

// migratePage is how many runs go over per import transaction (a
// variable so that a test can page a few runs).
var migratePage = 1000

// Migrate copies the tasks and runs of a host's ledger into a shared one,
// a page of runs per transaction. Every run is tagged with its origin (this
// host and the source's path), so that migrating again copies nothing
// twice, and a run that changed since (an outcome recorded late) is
// updated. Slots whose successful run was pruned at the source stay done at
// the target, and the boots the host saw go too, so that the causes of its
// old missed slots hold there. A run in progress at the source refuses the
// migration (see noRunInProgress and noneRunning). The alerts its killed
// scans owe are paid first (payOwedAlerts).
//
// The tasks go over last, once every run, pruned slot and boot is there:
// a migration refused or failed halfway leaves the shared ledger's tasks
// as they were, so none of the host's slots looks missed there for want
// of the runs not copied yet (runs only ever hold slots). Registered with
// the first page, as before, the task took the slots whose runs were in
// the pages not copied for missed, and a fleet scan replayed them.
func Migrate(ctx context.Context, m Machine, mg Migration) (Migrated, error) {
	if err := noRunInProgress(ctx, m, mg); err != nil {
		return Migrated{}, err
	}
	// The alerts this host's killed scans owe are kept beside the source
	// (m's lock directory is its), which no scan of the shared ledger
	// reads: paid here, from the source's records, as prune pays them.
	// Stopped while it paid one, it copies nothing: the alert stays owed
	// beside the source, as a stopped prune's or purge's does.
	if stopped := payOwedAlerts(ctx, mg.From, m); stopped || ctx.Err() != nil {
		return Migrated{}, errors.New("stopped before its migration: nothing copied (catchup migrate again)")
	}
	summaries, err := mg.From.Tasks(ctx)
	if err != nil {
		return Migrated{}, err
	}
	origin := m.Host + ":" + mg.FromPath
	tasks := make([]store.Task, 0, len(summaries))
	uncarried := map[string]store.Task{} // tasks whose pause or retirement stays on this host, as it was here
	for _, s := range summaries {
		t, err := ownLifecycle(ctx, m, mg, origin, s.Task)
		if err != nil {
			return Migrated{}, err
		}
		if t.PausedAt != s.Task.PausedAt || t.RetiredAt != s.Task.RetiredAt {
			uncarried[t.Name] = s.Task
		}
		carried, err := ownSchedule(ctx, m, mg, origin, t)
		if err != nil {
			return Migrated{}, err
		}
		if carried {
			tasks = append(tasks, t)
		}
	}
	done := Migrated{Tasks: len(summaries)}
	if done.NewTasks, err = newTasks(ctx, mg, tasks); err != nil {
		return done, err
	}
	if err := migrateRuns(ctx, mg, origin, uncarried, &done); err != nil {
		return done, err
	}
	pruned, err := mg.From.ExportPrunedSlots(ctx)
	if err != nil {
		return done, err
	}
	if err := mg.To.ImportPrunedSlots(ctx, pruned); err != nil {
		return done, fmt.Errorf("import into %s: %w", mg.ToWhere, err)
	}
	boots, err := mg.From.ExportBoots(ctx)
	if err != nil {
		return done, err
	}
	if err := mg.To.ImportBoots(ctx, boots); err != nil {
		return done, fmt.Errorf("import into %s: %w", mg.ToWhere, err)
	}
	if _, err := mg.To.Import(ctx, origin, tasks, nil); err != nil {
		return done, fmt.Errorf("import into %s: %w", mg.ToWhere, err)
	}
	return done, nil
}

// newTasks counts the tasks the target does not hold yet, read before any
// goes over: with no run copied either, a migrate copied nothing new.
func newTasks(ctx context.Context, mg Migration, tasks []store.Task) (int, error) {
	n := 0
	for _, t := range tasks {
		_, err := mg.To.Task(ctx, t.Name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			n++
		case err != nil:
			return 0, fmt.Errorf("read %s: %w", mg.ToWhere, err)
		}
	}
	return n, nil
}

// migrateRuns copies the source's runs, a page per transaction, counting
// them in done; a page holding a running run refuses the rest. The records
// a pause or a retirement left that migrate does not carry (uncarried:
// the tasks as this host has them, ownLifecycle) stay here too.
func migrateRuns(ctx context.Context, mg Migration, origin string, uncarried map[string]store.Task, done *Migrated) error {
	for after := int64(0); ; {
		runs, err := mg.From.ExportRuns(ctx, after, migratePage)
		if err != nil || len(runs) == 0 {
			return err
		}
		if err := noneRunning(runs, mg.FromPath); err != nil {
			return err
		}
		page, last := len(runs), runs[len(runs)-1].ID
		runs = slices.DeleteFunc(runs, func(r store.Run) bool { return lifecycleRecord(uncarried, r) })
		n, err := mg.To.Import(ctx, origin, nil, runs)
		if err != nil {
			return fmt.Errorf("import into %s: %w", mg.ToWhere, err)
		}
		done.Runs, done.Imported = done.Runs+len(runs), done.Imported+n
		if page < migratePage {
			return nil
		}
		after = last
	}
}

// lifecycleRecord reports whether r is a record of a pause or retirement
// of its task that migrate does not carry (uncarried: ownLifecycle): a
// fire recorded paused during the pause, a missed slot that forget
// recorded expired (retired). In the shared ledger, where the task is
// neither paused nor retired, such a record would settle a slot no host
// ran, never replayed, and explain would give a cause false there.
func lifecycleRecord(uncarried map[string]store.Task, r store.Run) bool {
	t, ok := uncarried[r.Task]
	switch {
	case !ok:
		return false
	case !t.PausedAt.IsZero() && r.Status == store.StatusPaused:
		return !r.StartedAt.Before(t.PausedAt)
	case !t.RetiredAt.IsZero() && r.Status == store.StatusExpired && r.Reason == store.ReasonRetired:
		return true
	}
	return false
}

// ownLifecycle is task t as migrate carries it: without its retirement and
// pause when the shared ledger holds runs of it from elsewhere (its own
// hosts', another host's import; not this host's own fires there since its
// switch, which ran only because the shared ledger did not know the pause). There the task lives on, and a forget or
// pause made on this host alone, older or not, would retire or pause it
// for the whole fleet, its missed slots no longer replayed; so the shared
// ledger's own lifecycle stands, and migrate says so.
func ownLifecycle(ctx context.Context, m Machine, mg Migration, origin string, t store.Task) (store.Task, error) {
	if t.RetiredAt.IsZero() && t.PausedAt.IsZero() {
		return t, nil
	}
	elsewhere, err := mg.To.RunsElsewhere(ctx, t.Name, origin, m.Host)
	if err != nil || !elsewhere {
		return t, err
	}
	what, fix := "pause", "pause"
	if !t.RetiredAt.IsZero() {
		what, fix = "retirement (catchup forget)", "forget"
	}
	m.notice("task %s: its %s on this host is not carried to %s, where other hosts run it, nor are the records it left here "+
		"(fires recorded paused, slots recorded expired as retired): catchup %s %s there, if it is meant for them all",
		t.Name, what, mg.ToWhere, fix, t.Name)
	t.RetiredAt, t.PausedAt, t.PausedUntil = time.Time{}, time.Time{}, time.Time{}
	return t, nil
}

// noRunInProgress refuses a migration while a run of the source is in
// progress on this host: its copy would stand in the shared ledger as
// running, held by a host that will never finish it there. Dead running
// records (their catchup and command gone, or from another boot) are
// marked interrupted first, as scan would.
func noRunInProgress(ctx context.Context, m Machine, mg Migration) error {
	running, err := mg.From.Running(ctx)
	if err != nil {
		return err
	}
	stale, err := staleAmong(ctx, mg.From, m, running, true)
	if err != nil {
		return err
	}
	for _, r := range running {
		if !stale[r.ID] {
			return inProgress(r, mg.FromPath)
		}
	}
	return nil
}

// noneRunning refuses a page of runs to copy that holds a running one: a
// run that started after noRunInProgress looked (the dead ones it found
// are interrupted by then). Copied, it would stand as running in the
// shared ledger, held by no lock there: its first scan would take it for
// dead and replay its slot while it still ran here.
func noneRunning(runs []store.Run, fromPath string) error {
	for _, r := range runs {
		if r.Status == store.StatusRunning {
			return inProgress(r, fromPath)
		}
	}
	return nil
}

func inProgress(r store.Run, fromPath string) error {
	return fmt.Errorf("run %d of %s (pid %d) is in progress in %s: migrate once no run is in progress "+
		"(catchup ls --running lists them), so that the shared ledger never holds a copy frozen as running",
		r.ID, r.Task, r.PID, fromPath)
}
