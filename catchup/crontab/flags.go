package crontab

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/catchup/catchup/catchup/duration"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// errQuote is wrapped by unterminated-quote errors.
var errQuote = errors.New("unterminated quote")

// skipGlobals reads catchup's global flags (--db, --host, --lease, with
// their values) up to the word run, counting them in given (one given
// again after run is given twice); false when another word comes first.
func skipGlobals(e *Entry, lx *lexer, given *flagsOnce) bool {
	for {
		w, ok, err := lx.next()
		if !ok || err != nil {
			return false
		}
		if w == "run" {
			return true
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(w, "--"), "=")
		if !strings.HasPrefix(w, "--") || name != "db" && name != "host" && name != "lease" {
			return false
		}
		if !hasVal {
			if val, ok, err = lx.next(); !ok || err != nil {
				return false
			}
		}
		given.add(name) // a refusal is kept for parseFlags to return
		if name == "db" {
			e.DB = val
		}
	}
}

// parseFlags reads the flags after `catchup run` up to `--`, the first
// positional word or the end of the simple command, and records the values of
// --task, --cron, --tz, --replay, --on-busy, --max-age and --notify-cmd; a flag given
// twice, counting the globals skipGlobals read into given, is refused
// (flagsOnce); program is the command's first word, unquoted and
// unexpanded.
func parseFlags(e *Entry, lx *lexer, given *flagsOnce) (program string, err error) {
	if given.err != nil {
		return "", given.err
	}
	for {
		a, ok, err := lx.next()
		if err != nil {
			return "", err
		}
		switch {
		case !ok:
			return "", errNoCommand
		case a == "--":
			w, more, err := lx.peek()
			if err == nil && !more {
				return "", errNoCommand
			}
			return w, nil
		case a == "":
			return "", errors.New("the command is empty (a variable that expanded to nothing?): every fire of the line would exit 125; fix: name the command after --")
		case a == "-" || !strings.HasPrefix(a, "-"):
			return a, nil
		}
		if !strings.HasPrefix(a, "--") {
			return "", fmt.Errorf("unknown flag %s in catchup line", shortFlag(a))
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		takesValue, known := RunFlag(name)
		if !known {
			return "", fmt.Errorf("unknown flag %s in catchup line", taskname.Shown("--"+name, 64))
		}
		if err := given.add(name); err != nil {
			return "", err
		}
		switch {
		case name == "wait":
			// --wait, --wait=DUR or --wait DUR (like flock -w).
			if !hasVal {
				if w, ok, err := lx.peek(); err == nil && ok && w == "" {
					return "", errEmpty("wait") // --wait "$LIMIT", LIMIT unset: never the command
				}
				lx.takeDuration()
			}
			continue
		case !takesValue:
			if _, perr := strconv.ParseBool(val); hasVal && perr != nil {
				return "", fmt.Errorf("invalid value %q for --%s in catchup line: %w", redact.Value(val), name, strconv.ErrSyntax)
			}
			continue
		case !hasVal:
			if val, ok, err = lx.next(); err != nil {
				return "", err
			} else if !ok {
				return "", fmt.Errorf("flag --%s needs a value in catchup line", name)
			}
		}
		if err := checkValue(name, val); err != nil {
			return "", err
		}
		switch name {
		case "task":
			e.Task = val
		case "cron":
			e.Cron = val
		case "tz":
			e.Zone = val
		case "replay":
			e.Replay = val
		case "on-busy":
			e.OnBusy = val
		case "max-age":
			e.MaxAge = val
		case "notify-cmd":
			e.NotifyCmd, e.NotifyExpands = val, lx.expands // of the word just read: the value, or --notify-cmd=VALUE
			if e.NotifyWord = ""; lx.expands {
				e.NotifyWord = lx.raw
				if hasVal {
					e.NotifyWord, _ = strings.CutPrefix(lx.raw, "--notify-cmd=") // "" when its name is quoted
					if e.NotifyWord == lx.raw {
						e.NotifyWord = ""
					}
				}
			}
		case "db":
			e.DB = val
		}
	}
}

// takeDuration reads the next word when it reads as a duration ("10m",
// "90s", "1h30m": the limit of a bare --wait), and returns it; else it
// reads nothing and returns "".
func (l *lexer) takeDuration() string {
	save, done := l.i, l.done
	w, ok, err := l.next()
	if ok && err == nil && isDuration(w) {
		return w
	}
	l.i, l.done = save, done
	return ""
}

// peek returns the next word without reading it.
func (l *lexer) peek() (word string, ok bool, err error) {
	save, done := l.i, l.done
	word, ok, err = l.next()
	l.i, l.done = save, done
	return word, ok, err
}

// errNoCommand refuses a catchup line with nothing after run's flags
// (checkEntry says it after the --task checks).
var errNoCommand = errors.New("no command after catchup run's flags: every fire of the line would exit 125; fix: end the line with -- COMMAND")

// isDuration reports whether w reads as a duration, days allowed, one too
// long among them (checkValue refuses it as such).
func isDuration(w string) bool {
	_, err := duration.Parse(w)
	return err == nil || errors.Is(err, duration.ErrTooLong)
}

// errEmpty refuses flag name given empty on a line: never read as not
// given, which would silently drop its alert (--notify-cmd, --ping), put
// its schedule in another zone (--tz), derive its name (--task), or record
// its fires nowhere (--db).
func errEmpty(name string) error {
	return fmt.Errorf("--%s is empty: name a value, or drop --%s", name, name)
}

// checkBlank refuses a --notify-cmd of blanks only, as an empty one
// (errEmpty): sh -c ' ' runs nothing, and the line's alert is silently
// dropped.
func checkBlank(name, val string) error {
	if name == "notify-cmd" && val != "" && strings.TrimSpace(val) == "" {
		return errors.New("--notify-cmd is blank: name a command, or drop --notify-cmd")
	}
	return nil
}

// checkValue refuses a value that `catchup run` itself refuses for flag
// name before it runs anything (exit 125 at every fire): an empty value
// (errEmpty), a duration or a count that does not parse. A value the shell expands at the fire ($VAR,
// `cmd`) is left to it.
func checkValue(name, val string) error {
	if strings.ContainsAny(val, "$`") {
		return nil
	}
	if val == "" && name != "task" { // "--cron $SCHED" with SCHED unset where the line was written; --task: checkEntry
		return errEmpty(name)
	}
	if err := checkBlank(name, val); err != nil {
		return err
	}
	switch name {
	case "timeout", "kill-after", "retry-delay", "tolerance":
		if _, err := duration.Parse(val); errors.Is(err, duration.ErrTooLong) {
			return fmt.Errorf("invalid --%s %s: %w", name, taskname.Quoted(redact.Value(val)), duration.ErrTooLong)
		}
		if !isDuration(val) {
			return fmt.Errorf("invalid --%s %s: want a duration like 90s or 10m", name, taskname.Quoted(redact.Value(val)))
		}
	case "retries":
		if _, err := strconv.ParseInt(val, 10, 0); err != nil { // as run reads a count: decimal
			return fmt.Errorf("invalid --retries %s: want a count", taskname.Quoted(redact.Value(val)))
		}
	}
	return nil
}

// RunFlag reports whether name (without --) is a flag of `catchup run` that
// the crontab parser reads, and whether it takes a value. A switch, not a
// map: a package-level map is built at every process's start
// (docs/performance.md).
func RunFlag(name string) (takesValue, known bool) {
	switch name {
	case "task", "cron", "tz", "tolerance", "timeout", "kill-after", "slot", "replay", "retries",
		"retry-delay", "db", "notify-cmd", "ping", "ping-file", "host", "lease", "on-busy", "max-age":
		return true, true
	case "force", "strict", "no-capture", "fail-open", "manual",
		"wait": // takes an optional duration: parseFlags reads it
		return false, true
	}
	return false, false
}

// shortFlag is a short flag's word as a warning may name it: its first
// letter (-p... for -pS3cret), since the rest may be the job's secret, its
// own option taken for catchup's when --task's value or the -- was left
// out.
func shortFlag(a string) string {
	if len(a) <= 2 {
		return a
	}
	return a[:2] + "..."
}

// Program is the job a catchup line's command part runs: the first word
// after `catchup run`'s flags, unquoted and unexpanded; "" if it has none
// or is not a catchup line.
func Program(command string) string {
	lx := &lexer{s: command}
	if w, ok, err := lx.next(); !ok || err != nil || !isCatchupWord(w) {
		return ""
	}
	var e Entry
	given := newFlagsOnce()
	if !skipGlobals(&e, lx, given) {
		return ""
	}
	program, err := parseFlags(&e, lx, given)
	if err != nil {
		return ""
	}
	return program
}

// ShellProgram is the program a shell command line starts: its first word
// after leading VAR=value assignments, unquoted and unexpanded; "" if none.
func ShellProgram(command string) string {
	lx := &lexer{s: command}
	for {
		w, ok, err := lx.next()
		if !ok || err != nil {
			return ""
		}
		if !isAssignment(w) {
			return w
		}
	}
}
