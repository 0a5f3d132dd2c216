package crontab

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// Job is one job line of a crontab read by `catchup daemon`, where every
// line is a task.
type Job struct {
	Entry                   // File, Line, Expr, Env, TZ, Task, and the flags scan reads
	Run   string            // the shell command the daemon runs: the line's command, or what follows `catchup run [flags] --`
	Flags map[string]string // the line's `catchup run` flags by name ("true" for a bare boolean); nil for a plain line
	// Warning, when set, says why a line the daemon runs as written was
	// most likely meant otherwise: for the daemon to log, not refuse.
	Warning string
}

// errDaemonReboot refuses an @reboot line of the daemon's crontab: not
// scan's errReboot, whose cron that still runs it at boot is not there.
var errDaemonReboot = errors.New("@reboot has no time slot, and the daemon fires timed lines only; " +
	"fix: run the command before catchup daemon starts (the container's entrypoint), or drop the line")

// ParseJobs reads a user-format crontab in which every job line is a task:
// named by a `# catchup: task=NAME` comment on the line before it, by the
// --task of a `catchup run` line, or else derived from its command (a slug
// of the command's first word and a hash of the command: stable while the
// command is). Variables and CRON_TZ apply as in cronie. A line with an
// unescaped % (cron's %-stdin, a trailing % too) is refused. It is a pure
// function of its input.
func ParseJobs(r io.Reader, name string) ([]Job, []error) {
	jobs, errs, _ := ParseJobsUpTo(r, name, -1)
	return jobs, errs
}

// ParseJobsUpTo is ParseJobs reading no further than the job line (a job
// or a malformed line's error) past the first most of them: more says
// that there are more than most (MaxCatchupLines: every job line of a
// daemon's crontab is a task), and what it returns is then only what it
// read. A negative most reads the whole crontab.
func ParseJobsUpTo(r io.Reader, name string, most int) (jobs []Job, errs []error, more bool) {
	var (
		env     variables
		pending string
	)
	err := eachLine(r, name, func(lineNo int, line string, tooLong bool) bool {
		fail := func(err error) { errs = append(errs, &Error{File: name, Line: lineNo, Err: err}) }
		s := strings.TrimLeft(line, " \t")
		switch {
		case tooLong:
			fail(fmt.Errorf("line longer than %d bytes; skipped", maxLine))
		case strings.TrimLeftFunc(s, isSpace) == "":
		case s[0] == '#':
			if n, ok, err := taskComment(s); err != nil {
				fail(err)
			} else if ok {
				pending = n
			}
		default:
			if n, v, ok := envLine(s); ok {
				env.set(n, v)
				break
			}
			j, err := parseJobLine(s, pending)
			pending = ""
			if err != nil {
				fail(err)
				break
			}
			j.File, j.Line, j.Env, j.TZ = name, lineNo, env.list(), env.tz()
			jobs = append(jobs, j)
		}
		more = most >= 0 && len(jobs)+len(errs) > most
		return !more
	})
	if err != nil {
		errs = append(errs, err)
	}
	return jobs, errs, more
}

// taskComment reads `# catchup: task=NAME`.
func taskComment(s string) (string, bool, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(s, "#")), "catchup:")
	if !ok {
		return "", false, nil
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return "", false, errors.New("empty # catchup: comment: write # catchup: task=NAME")
	}
	k, v, _ := strings.Cut(words[0], "=")
	if k != "task" {
		return "", false, fmt.Errorf("unknown key %q in a # catchup: comment: only task=NAME", k)
	}
	if err := taskname.Check(v); err != nil {
		return "", false, err
	}
	if len(words) > 1 {
		// Never dropped: flags meant for the line would be ignored.
		return "", false, fmt.Errorf("%q after task=%s in a # catchup: comment: it holds the task's name only; put catchup run flags on the job line (catchup run --task %s FLAGS -- COMMAND)", words[1], v, v)
	}
	return v, true, nil
}

// parseJobLine parses one job line (leading blanks removed).
func parseJobLine(s, name string) (Job, error) {
	if len(s) > 1 && s[0] == '-' {
		s = s[1:]
	}
	nTime := 5
	if s[0] == '@' {
		nTime = 1
	}
	head, rest := splitFields(s, nTime)
	if len(head) != nTime || rest == "" {
		if v, ok := badlyQuotedVariable(s); ok {
			// Its value is not shown: it may be a secret (PGPASSWORD=).
			return Job{}, fmt.Errorf("not a job line, nor a variable: variable %s's value has quotes that do not match, "+
				"or text after its closing quote, so cron reads the line as neither; fix: end the value with the quote it "+
				"starts with (%s=\"a b\"), or drop the quotes", v, v)
		}
		return Job{}, errors.New("not a job line: want 5 time fields (or an @macro) and a command")
	}
	if n := extraTimeFields(rest); nTime == 5 && n > 0 {
		return Job{}, timeFieldCount(5+n, "the command") // as scan refuses such a catchup line
	}
	j := Job{Entry: Entry{Expr: strings.Join(head, " ")}}
	if nTime == 1 {
		switch {
		case j.Expr == "@reboot":
			return Job{}, errDaemonReboot
		case !isMacro(j.Expr):
			return Job{}, fmt.Errorf("unknown macro %s: use @hourly, @daily (@midnight), @weekly, @monthly or @yearly (@annually), or 5 time fields", taskname.Quoted(j.Expr))
		}
	}
	// Any unescaped %, a trailing one too: cron would cut the command there
	// (and feed the rest as stdin); supercronic runs it literally. Either
	// reading would silently change what some migrated line runs.
	cmd, _, cut := splitPercent(rest)
	if cut {
		return Job{}, errors.New("the daemon does not feed a %-stdin to jobs: write \\% for a literal %, or pipe the text in the command")
	}
	j.Command, j.Run = cmd, strings.TrimSpace(cmd)
	lx := &lexer{s: cmd}
	w0, ok0, err0 := lx.next()
	w1, ok1, err1 := lx.next()
	if ok0 && ok1 && err0 == nil && err1 == nil && isCatchupWord(w0) && w1 == "run" {
		flags, run, err := runLineFlags(&j.Entry, lx)
		if err != nil {
			return Job{}, err
		}
		j.Flags, j.Run = flags, run
	}
	if j.Run == "" {
		return Job{}, errors.New("the line has no command to run")
	}
	if j.Flags == nil && mentionsCatchupRun(cmd) {
		j.Warning = "the command runs catchup run, but does not start with it: the daemon runs the line as its task, " +
			"and that catchup run records a task of its own, with no slot; start the command with catchup run " +
			"(the daemon then uses its flags), or leave catchup run out"
	}
	switch {
	case name != "":
		j.Task = name
	case j.Task == "":
		j.Task = DerivedName(j.Run)
	}
	if err := taskname.Check(j.Task); err != nil {
		return Job{}, err
	}
	return j, nil
}

// runLineFlags reads the flags of a `catchup run` line up to `--` and
// returns them with the command after them.
func runLineFlags(e *Entry, lx *lexer) (map[string]string, string, error) {
	flags, given := map[string]string{}, newFlagsOnce()
	for {
		save := lx.i
		a, ok, err := lx.next()
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", errors.New("a catchup run line needs -- COMMAND")
		}
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "--") {
			lx.i = save
			break
		}
		n, v, hasVal := strings.Cut(a[2:], "=")
		takesValue, known := RunFlag(n)
		switch {
		case !known:
			return nil, "", fmt.Errorf("unknown flag %s in catchup line", taskname.Shown("--"+n, 64))
		case n == "wait" && !hasVal: // --wait, or --wait DUR (like flock -w)
			if v = lx.takeDuration(); v == "" {
				v = "true"
			}
		case takesValue && !hasVal:
			if v, ok, err = lx.next(); err != nil || !ok {
				return nil, "", fmt.Errorf("flag --%s needs a value in catchup line", n)
			}
		case !hasVal:
			v = "true"
		case !takesValue && n != "wait": // --strict=1 as run reads it, --strict= refused
			b, perr := strconv.ParseBool(v)
			if perr != nil {
				return nil, "", fmt.Errorf("invalid value %q for --%s in catchup line: %w", redact.Value(v), n, strconv.ErrSyntax)
			}
			v = strconv.FormatBool(b)
		}
		if takesValue && v == "" {
			return nil, "", errEmpty(n)
		}
		if err := checkBlank(n, v); err != nil {
			return nil, "", err
		}
		if err := given.add(n); err != nil {
			return nil, "", err
		}
		flags[n] = v
	}
	e.Task, e.Cron, e.Zone, e.Replay, e.OnBusy, e.DB = flags["task"], flags["cron"], flags["tz"], flags["replay"], flags["on-busy"], flags["db"]
	return flags, strings.TrimSpace(lx.s[lx.i:]), nil
}

// DerivedName is the task name of a line without one: the basename of its
// first word past VAR=value assignments (a value is often a secret, and
// never part of a name), then 8 hex digits of a hash of the whole command.
// No word with an = names a task, however it is spelt: a subshell's
// "(PGPASSWORD=X", an escaped or quoted one. Both come from the command
// with its secrets masked (redact.Command, as the ledger stores it): a hash
// of a secret, beside the rest of the line, would let one test guesses of
// a weak secret offline. A command with no secret is left as it is, and so
// is its name.
func DerivedName(command string) string {
	command = redact.Command(command)
	sum := sha256.Sum256([]byte(command))
	word := strings.Fields(command + " x")[0]
	first := path.Base(word)
	if strings.Contains(word, "=") {
		first = ""
		for lx := (&lexer{s: command}); ; {
			w, ok, err := lx.next()
			if !ok || err != nil {
				break
			}
			if !strings.Contains(w, "=") {
				first = path.Base(w)
				break
			}
		}
	}
	var b strings.Builder
	for _, r := range first {
		if r < 128 && (r == '.' || r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
		}
	}
	slug := strings.TrimLeft(b.String(), "._-")
	if len(slug) > 40 {
		slug = slug[:40]
	}
	if slug == "" {
		slug = "job"
	}
	return slug + "-" + hex.EncodeToString(sum[:4])
}
