// Package crontab reads crontabs the way cron does (lines, variables, the %
// rule, system crontabs' user field) and finds the `catchup run` lines in
// them, with the flags scan needs. It runs nothing and expands nothing.
package crontab

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// Entry is one `catchup run` line found in a crontab.
type Entry struct {
	File    string   // name given to Parse
	Line    int      // 1-based line number
	Expr    string   // the time fields as a cron expression: "0 2 * * *" (5 fields joined by single spaces) or the @macro as written ("@daily")
	User    string   // the user field of a system crontab; "" for user crontabs
	Command string   // the command part as cron passes it to the shell: everything up to the first unescaped %, with `\%` turned into `%`
	Stdin   string   // the bytes cron writes to the command's stdin (text after the first unescaped %, cron semantics); "" if none
	Env     []string // the VAR=value assignments in effect at this line, one per name in order of first appearance, latest value
	TZ      string   // CRON_TZ in effect, else "" (a TZ= line is the jobs' environment, not the schedule's zone: cronie)
	Task    string   // value of --task in the catchup invocation
	Cron    string   // value of --cron if present ("" if absent)
	Zone    string   // value of --tz if present
	Replay  string   // value of --replay if present
	MaxAge  string   // value of --max-age if present
	OnBusy  string   // value of --on-busy if present
	DB      string   // value of --db if present
	// NotifyCmd is the value of --notify-cmd if present, unquoted and
	// unexpanded; NotifyExpands says that the line's shell expands it at
	// the fire ($VAR, `cmd` outside single quotes): the fire's command is
	// then not the text read here. NotifyWord is then the value as the
	// line writes it, its quotes kept, for the reader that expands it as
	// the line's shell would ("" when the flag's own name is quoted).
	NotifyCmd     string
	NotifyExpands bool
	NotifyWord    string
}

// Error reports one malformed catchup line; parsing continues after it.
type Error struct {
	File string
	Line int
	Err  error
}

// Error returns "FILE:LINE: message".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// errReboot is wrapped by the error for an @reboot catchup line.
var errReboot = errors.New("@reboot has no time slot, so scan replays nothing of it and leaves the line out; cron still runs it at each boot (to quiet this, run the @reboot command without catchup run)")

// maxLine bounds the bytes kept of one line; longer lines are skipped.
const maxLine = 4 << 20

// isMacro reports whether s is one of cron's @ shorthands. A switch, not a
// map: a package-level map is built at every process's start.
func isMacro(s string) bool {
	switch s {
	case "@reboot", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return true
	}
	return false
}

// Parse reads a crontab. system=true means the format of /etc/crontab
// and /etc/cron.d/* (a user field after the time fields). It returns every
// catchup line, and one *Error per malformed catchup line. Lines that
// are not catchup lines are ignored silently, including malformed non-catchup
// lines. It is a pure function of its input. A read error from r ends parsing
// and is reported as a *Error for the line being read.
func Parse(r io.Reader, name string, system bool) ([]Entry, []error) {
	entries, errs, _ := ParseUpTo(r, name, system, -1)
	return entries, errs
}

// IsSystem reports whether path is a system crontab by location:
// /etc/crontab or a file directly in /etc/cron.d/.
func IsSystem(path string) bool {
	p := filepath.Clean(path)
	return p == SystemCrontab || filepath.Dir(p) == SystemDir
}

// cString is line as cron reads it: up to its first NUL.
func cString(line string) string {
	if i := strings.IndexByte(line, 0); i >= 0 {
		return line[:i]
	}
	return line
}

// readLine returns the next line without its "\n". last is true at end
// of input. At most maxLine bytes are kept; tooLong reports a longer line.
func readLine(br *bufio.Reader) (line string, tooLong, last bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if room := maxLine + 1 - len(buf); len(chunk) > room {
			chunk, tooLong = chunk[:room], true
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			buf = buf[:len(buf)-1]
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case !errors.Is(err, io.EOF):
			return "", false, true, err
		}
		if len(buf) > maxLine {
			tooLong, buf = true, buf[:maxLine]
		}
		return string(buf), tooLong, err != nil, nil
	}
}

// parseLine handles one line: env lines update env; catchup job lines
// return an entry (ok) or an error; everything else is ignored.
func parseLine(line string, system bool, env *variables) (Entry, bool, error) {
	s := strings.TrimLeft(line, " \t")
	if strings.TrimLeftFunc(s, isSpace) == "" || s[0] == '#' {
		return Entry{}, false, nil
	}
	if name, val, ok := envLine(s); ok {
		env.set(name, val)
		return Entry{}, false, nil
	}
	e, ok, err := parseJob(s, system)
	if err != nil || !ok {
		return Entry{}, false, err
	}
	e.Env, e.TZ = env.list(), env.tz()
	return e, true, nil
}

// envLine recognises `NAME = value` the way cronie does: value may be
// wrapped in matching single or double quotes (stripped, and then only
// whitespace may follow); an unquoted value loses trailing whitespace.
func envLine(s string) (name, val string, ok bool) {
	n := 0
	for n < len(s) && (s[n] == '_' || 'A' <= s[n] && s[n] <= 'Z' || 'a' <= s[n] && s[n] <= 'z' ||
		n > 0 && '0' <= s[n] && s[n] <= '9') {
		n++
	}
	rest := strings.TrimLeft(s[n:], " \t")
	if n == 0 || !strings.HasPrefix(rest, "=") {
		return "", "", false
	}
	rest = strings.TrimLeftFunc(rest[1:], isSpace)
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 || strings.TrimLeftFunc(rest[end+2:], isSpace) != "" {
			return "", "", false
		}
		return s[:n], rest[1 : end+1], true
	}
	return s[:n], strings.TrimRightFunc(rest, isSpace), true
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// variables is the environment built from a crontab's VAR=value lines.
type variables struct {
	names []string
	vals  map[string]string
}

func (v *variables) set(name, val string) {
	if v.vals == nil {
		v.vals = make(map[string]string)
	}
	if _, seen := v.vals[name]; !seen {
		v.names = append(v.names, name)
	}
	v.vals[name] = val
}

// list returns a fresh NAME=value slice, nil when there are no variables.
func (v *variables) list() []string {
	if len(v.names) == 0 {
		return nil
	}
	out := make([]string, len(v.names))
	for i, n := range v.names {
		out[i] = n + "=" + v.vals[n]
	}
	return out
}

// tz is the zone cron reads the lines in: CRON_TZ. A TZ= line only sets
// the jobs' environment; cronie fires such lines in its own zone.
func (v *variables) tz() string { return v.vals["CRON_TZ"] }

// parseJob parses a job line s (leading blanks removed). ok reports a well
// formed catchup line; err a malformed one.
func parseJob(s string, system bool) (e Entry, ok bool, err error) {
	if len(s) > 1 && s[0] == '-' && s[1] != ' ' && s[1] != '\t' {
		s = s[1:] // cronie: a leading '-' disables logging of the job
	}
	nTime := 5
	if s[0] == '@' {
		nTime = 1
	}
	nHead := nTime
	if system {
		nHead++
	}
	head, rest := splitFields(s, nHead)
	if len(head) == nHead && rest != "" {
		cmd, stdin, cut := splitPercent(rest)
		lx := &lexer{s: cmd}
		w0, ok0, err0 := lx.next()
		given := newFlagsOnce()
		if ok0 && err0 == nil && isCatchupWord(w0) && skipGlobals(&e, lx, given) {
			e.Expr = strings.Join(head[:nTime], " ")
			if system {
				e.User = head[nTime]
			}
			e.Command, e.Stdin = cmd, stdin
			if err := checkEntry(&e, nTime, lx, given, cut); err != nil {
				return Entry{}, false, err
			}
			return e, true, nil
		}
	}
	return Entry{}, false, misplaced(s, nTime, nHead, system)
}

// checkEntry validates a catchup line and fills in its flag values; given
// holds the global flags read before run.
func checkEntry(e *Entry, nTime int, lx *lexer, given *flagsOnce, cut bool) error {
	if nTime == 1 {
		switch {
		case e.Expr == "@reboot":
			return errReboot
		case !isMacro(e.Expr):
			return fmt.Errorf("unknown macro %s in catchup line: use @hourly, @daily (@midnight), @weekly, @monthly or @yearly (@annually), or 5 time fields", taskname.Quoted(e.Expr))
		}
	}
	if strings.HasPrefix(e.User, "*") {
		return fmt.Errorf("user field %q looks like a time field: expected 5 time fields and a user", e.User)
	}
	_, noCommand := parseFlags(e, lx, given)
	if err := noCommand; err != nil && !errors.Is(err, errNoCommand) {
		if cut && errors.Is(err, errQuote) {
			return fmt.Errorf("%w (cron ends the command at the first unescaped %%; write \\%% for a literal %%)", err)
		}
		return err
	}
	switch {
	case e.Task == "":
		return errors.New("missing or empty --task in catchup line")
	case !taskname.Valid(e.Task):
		return fmt.Errorf("invalid task name %s: must match [A-Za-z0-9][A-Za-z0-9._-]{0,127}", taskname.Quoted(redact.Value(e.Task)))
	}
	return noCommand
}

// SystemCrontab and SystemDir locate the system crontabs; tests point them
// elsewhere.
var SystemCrontab, SystemDir = "/etc/crontab", "/etc/cron.d"
