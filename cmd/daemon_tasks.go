package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/daemon"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// daemonTasks reads the daemon's crontabs into checked tasks and registers
// them. Any malformed line is an error: a daemon must not start with a job
// silently dropped. So is a crontab with no job line: a file read while a
// writer rewrites it in place is empty, and its tasks must not be retired
// for that (nor, at start, those registered from it). Every line is
// checked before any task is registered: a refused reload leaves the
// ledger as it was, as it leaves the tasks. firesFrom is where a task's
// loop may fire from (RegisterDaemonTask's). noticeFor, if set, is the
// notice of a task's registration (its task an attribute of the log's
// record), else m.Notice.
func daemonTasks(ctx context.Context, st store.Store, m catchup.Machine, files []string, firesFrom func(string) time.Time,
	noticeFor func(task string) func(string, ...any)) ([]daemon.Task, error) {
	var tasks []daemon.Task
	seen := map[string]string{}
	for _, name := range files {
		path, err := filepath.Abs(name)
		if err != nil {
			return nil, err
		}
		data, err := readDaemonCrontab(path)
		if err != nil {
			return nil, err
		}
		jobs, errs, more := crontab.ParseJobsUpTo(bytes.NewReader(data), name, crontab.MaxCatchupLines)
		if more { // as scan refuses a crontab of more catchup lines: before, each one a registration
			return nil, crontab.TooManyJobs(name)
		}
		if len(errs) > 0 {
			// One line: errors.Join's newline reached the operator as an escaped \n.
			return nil, fmt.Errorf("crontab %w", catchup.JoinErrors(errs...))
		}
		if len(jobs) == 0 { // read while being written, most likely: its lines are not removed
			return nil, fmt.Errorf("%s has no job line (read while being written?): to stop its tasks on purpose, drop --crontab %s and `catchup forget` them", name, name)
		}
		for _, j := range jobs {
			where := fmt.Sprintf("%s:%d", name, j.Line)
			if prev, dup := seen[j.Task]; dup {
				return nil, fmt.Errorf("%s: task %s is also the line at %s: name one of them with a # catchup: task=NAME comment", where, j.Task, prev)
			}
			seen[j.Task] = where
			t, err := daemonTask(m, j, path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if w := lineWarning(j); w != "" {
				m.Notice("%s: %s", where, w)
			}
			tasks = append(tasks, t)
		}
	}
	for i, t := range tasks {
		var err error
		tm := m
		if noticeFor != nil {
			tm.Notice = noticeFor(t.Def.Name)
		}
		if tasks[i].Def, tasks[i].Replaced, err = catchup.RegisterDaemonTask(ctx, st, tm, t.Def, t.ZoneFromHost, firesFrom(t.Def.Name)); err != nil {
			// The ledger's fault, not the crontab's: a reload is tried again.
			return nil, daemon.LedgerFault{Err: fmt.Errorf("register task %s: %w", t.Def.Name, err)}
		}
		if z := tasks[i].Def.TZ; !schedule.SameZone(z, t.Sched.Location().String()) {
			// A shared ledger's zone for the task (RegisterDaemonTask).
			loc, err := schedule.LoadZone(z)
			if err == nil {
				tasks[i].Sched, err = schedule.Parse(t.Def.Schedule, loc)
			}
			if err != nil {
				return nil, fmt.Errorf("register task %s: its registered zone %s: %w", t.Def.Name, z, err)
			}
		}
	}
	return tasks, nil
}

// lineWarning says why a line the daemon runs as written was most likely
// meant otherwise ("" when it was not): a command that runs catchup run
// inside it (crontab.Job.Warning), or one that starts with the name of a
// user of this host that is no command, a system crontab's user field
// (the daemon reads user-format crontabs: it would run "root" as the
// command, each slot failing with exit 127).
func lineWarning(j crontab.Job) string {
	if j.Warning != "" || j.Flags != nil {
		return j.Warning
	}
	word := strings.Fields(j.Run)[0]
	if !userNotCommand(word) {
		return ""
	}
	return fmt.Sprintf("the command starts with %q, a user of this host and no command: a system crontab's user field? "+
		"The daemon reads user-format crontabs (no user field), and runs it as the command", word)
}

// daemonTask turns one crontab line into a task: its zone (the line's --tz,
// else CRON_TZ, else the host's), its schedule, and its run flags.
func daemonTask(m catchup.Machine, j crontab.Job, path string) (daemon.Task, error) {
	if err := j.CheckZones(); err != nil {
		return daemon.Task{}, err
	}
	zone := schedule.ZoneSpelling(j.Zone)
	if zone == "" {
		zone = schedule.ZoneSpelling(j.TZ)
	}
	fromHost := zone == ""
	if fromHost {
		zone = m.Zone
	}
	loc, err := schedule.LoadZone(zone)
	if err != nil {
		return daemon.Task{}, err
	}
	sched, err := schedule.Parse(j.Expr, loc)
	if err != nil {
		return daemon.Task{}, err
	}
	home, err := lineHome(m, j)
	if err != nil {
		return daemon.Task{}, err
	}
	shell := "/bin/sh"
	for _, kv := range j.Env {
		if k, v, _ := cutEnv(kv); k == "SHELL" {
			shell = v
		}
	}
	env := append([]string{"SHELL=" + shell, "HOME=" + home}, j.Env...)
	if err := checkDaemonLineFlags(m, j); err != nil {
		return daemon.Task{}, err
	}
	if err := checkDaemonLineVariables(m, j, home); err != nil {
		return daemon.Task{}, err
	}
	fl := func(name string) string { return j.Flags[name] }
	// The home is the line's registered directory, where its replays
	// start: a fire starts there only while it is trusted, as they do.
	req := catchup.RunRequest{Task: j.Task, Argv: []string{shell, "-c", j.Run}, Dir: home, DirFromLedger: true,
		OnBusy: fl("on-busy"), NotifyCmd: fl("notify-cmd"),
		NoCapture: fl("no-capture") == "true", FailOpen: fl("fail-open") == "true", Strict: fl("strict") == "true",
		Shared: store.IsPostgres(m.DB), KillAfter: 10 * time.Second, RetryDelay: time.Minute}
	for name, p := range map[string]*time.Duration{"timeout": &req.Timeout, "kill-after": &req.KillAfter, "retry-delay": &req.RetryDelay} {
		if v := fl(name); v != "" {
			if *p, err = parseDuration(v); err != nil || *p < 0 {
				return daemon.Task{}, fmt.Errorf("invalid --%s %s: %s", name, quotedValue(v), durationWant(err, "want a duration like 90s or 10m"))
			}
		}
	}
	warnPing := func(w string) {
		if m.Notice != nil {
			m.Notice("%s:%d: %s", path, j.Line, w)
		}
	}
	if req.Ping, err = daemonLinePing(fl("ping"), fl("ping-file"), home, j.Env, warnPing); err != nil {
		return daemon.Task{}, err
	}
	var maxAge time.Duration
	if v := fl("max-age"); v != "" {
		if maxAge, err = parseDuration(v); err != nil || maxAge <= 0 {
			return daemon.Task{}, fmt.Errorf("invalid --max-age %s: %s", quotedValue(v), durationWant(err, "want a positive duration like 2h or 3d"))
		}
	}
	if v := fl("wait"); v != "" { // as run reads it: bare, =true/false, =unlimited or a limit
		var w waitValue
		if err := w.Set(v); err != nil {
			want := durationWant(err, "want a duration like 5m")
			if !errors.Is(err, catchup.ErrDurationInvalid) && !errors.Is(err, catchup.ErrDurationTooLong) {
				want = "the limit must be positive (a bare --wait waits without one)"
			}
			return daemon.Task{}, fmt.Errorf("invalid --wait %s: %s", quotedValue(v), want)
		}
		req.Wait, req.WaitLimit = w.set, w.limit
	}
	if v := fl("retries"); v != "" {
		if req.Retries, err = strconv.Atoi(v); err != nil || req.Retries < 0 {
			return daemon.Task{}, fmt.Errorf("invalid --retries %s: want a count", quotedValue(v))
		}
	}
	replay := fl("replay")
	if replay == "" {
		replay = "all"
	}
	if err := catchup.CheckPolicy(replay); err != nil {
		return daemon.Task{}, err
	}
	switch req.OnBusy {
	case "", "replay", "skip", "wait":
	default:
		return daemon.Task{}, fmt.Errorf("invalid --on-busy %s: use replay, skip or wait", quotedValue(req.OnBusy))
	}
	// The ledger keeps the command without its secrets; the daemon runs
	// (and replays) the line as written.
	stored := []string{shell, "-c", crontab.Redacted(j.Run)}
	redacted := stored[2] != j.Run
	def := store.Task{Name: j.Task, Schedule: j.Expr, TZ: loc.String(), Replay: replay, Argv: stored, Dir: home,
		Source: daemon.Source(path, j.Line, os.Geteuid(), redacted), Retries: req.Retries, RetryDelay: req.RetryDelay,
		Timeout: req.Timeout, KillAfter: req.KillAfter, NoCapture: req.NoCapture, NotifyCmd: req.NotifyCmd, OnBusy: req.OnBusy,
		MaxAge: maxAge}
	return daemon.Task{Def: def, Sched: sched, Req: req, Env: env, ZoneFromHost: fromHost}, nil
}

// checkDaemonLineFlags refuses the `catchup run` flags of a line that
// cannot apply to a fire the daemon makes at its slot, in its own ledger:
// ignoring them would be silent.
func checkDaemonLineFlags(m catchup.Machine, j crontab.Job) error {
	refused := []struct{ flag, why string }{
		{"slot", "each fire stands for its own slot; drop --slot (catchup backfill runs past slots)"},
		{"manual", "each fire stands for its own slot; drop --manual (catchup run --manual runs a task by hand)"},
		{"force", "a fire never runs a done slot again; drop --force (catchup backfill --only all does)"},
		{"tolerance", "the daemon fires at the slot itself; drop it, or set catchup daemon --tolerance"},
		{"host", "the daemon records every fire as its own host; drop it, or set catchup daemon --host"},
		{"lease", "the daemon's lease is its own; drop it, or set catchup daemon --lease"},
	}
	for _, r := range refused {
		if _, ok := j.Flags[r.flag]; ok {
			return fmt.Errorf("--%s on a daemon line: %s", r.flag, r.why)
		}
	}
	if v, ok := j.Flags["cron"]; ok && !schedule.SameExpr(v, j.Expr) {
		return fmt.Errorf("--cron %s differs from the line's time fields %q: the time fields are its schedule; drop --cron", taskname.QuotedUpTo(redact.Value(v), 128), j.Expr)
	}
	if v, ok := j.Flags["db"]; ok && v != m.DB {
		return fmt.Errorf("--db on a daemon line: the daemon records every task in its own ledger; drop it, or set catchup daemon --db")
	}
	return nil
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// daemonClock is the daemon's test hook for second granularity:
// CATCHUP_TEST_MINUTE=DUR makes a clock minute last DUR of real time, the
// clock reading the real time at CATCHUP_TEST_EPOCH (Unix seconds; every
// process given the same pair reads the same clock). nil: the usual clock
// (the real one, or CATCHUP_NOW). Without CATCHUP_TEST_EPOCH the epoch is
// the daemon's start. Only the clock is scaled: --rescan, --grace and the
// other durations the daemon waits run in real time (give them in
// seconds beside it, e.g. --rescan 1s).
func daemonClock(getenv func(string) string) (func() time.Time, float64, error) {
	v := getenv("CATCHUP_TEST_MINUTE")
	if v == "" {
		return nil, 1, nil
	}
	minute, err := time.ParseDuration(v)
	if err != nil || minute <= 0 || minute > time.Minute {
		return nil, 0, fmt.Errorf("CATCHUP_TEST_MINUTE=%q: want a duration up to 1m, like 1s", v)
	}
	if getenv("CATCHUP_NOW") != "" {
		return nil, 0, errors.New("CATCHUP_TEST_MINUTE and CATCHUP_NOW exclude each other")
	}
	epoch, rate := time.Now(), float64(time.Minute)/float64(minute)
	if v := getenv("CATCHUP_TEST_EPOCH"); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("CATCHUP_TEST_EPOCH=%q: want Unix seconds", v)
		}
		epoch = time.Unix(sec, 0)
	}
	return func() time.Time {
		return epoch.Add(time.Duration(float64(time.Since(epoch)) * rate))
	}, rate, nil
}
