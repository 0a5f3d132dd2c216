package crontab

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
	"github.com/catchup/catchup/catchup/taskname"
)

// Change is one job line Wrap rewrote.
type Change struct {
	Line     int    // 1-based
	Old, New string // the line before and after
	Task     string // the task name it was given
	// PathLine is the 1-based line of the PATH= in effect for the line
	// (0: none, cron's default), and Path its value: cron runs the
	// wrapped line's catchup found there.
	PathLine int
	Path     string
}

// overrideMark starts the comment that names the task of the next line:
// "# catchup: task=NAME".
const overrideMark = "catchup:"

// Wrap returns text with each cron job line prefixed by
// `catchup run --task NAME --`, a pure function of its input. Variables,
// comments, blank lines, @reboot lines and lines already running catchup are
// kept byte for byte; a note tells of each line kept that cron or scan
// could take for a job (@reboot, a line that reads as no job line, a
// catchup line scan refuses). A command that is not a plain list of words (it has
// quotes, redirections, pipes, expansions...) is passed as one argument to
// `sh -c` (or the crontab's SHELL), so that catchup runs all of it; the text
// after cron's first unescaped % (the job's stdin) stays where it was.
//
// NAME is derived from the command (the program or script run, without
// directory or extension), made unique in the file with -2, -3...; a comment
// line `# catchup: task=NAME` right before a job line names it instead.
// notes tell of lines left alone that a reader might expect changed.
//
// knownUser reports whether this host has a user of that name (nil: any
// name does): a system crontab's line whose user field names none is left
// as is, since it is more likely a user crontab's line read with --system
// (`0 3 * * * echo hi`: user echo), which wrapped would lose its first word.
//
// userField reports whether a user-format line's command reads as a system
// crontab's user field and command (nil: only a command starting with the
// word root does): such a line is most likely a copy of /etc/crontab read
// without --system, and is left as is with a note.
func Wrap(text string, system bool, knownUser, userField func(command string) bool) (out string, changes []Change, notes []string) {
	lines := strings.Split(text, "\n")
	taken := map[string]bool{}
	for _, e := range existingEntries(text, system) {
		taken[e.Task] = true
	}
	// A name a comment gives a later line is not derived for an earlier
	// one: that would make one task of two lines.
	derivable := maps.Clone(taken)
	for _, line := range lines {
		s := strings.TrimLeft(line, " \t")
		if name, ok := overrideName(s); ok && strings.HasPrefix(s, "#") && taskname.Valid(name) {
			derivable[name] = true
		}
	}
	var env variables
	override, pathLine := "", 0
	for i, line := range lines {
		s := strings.TrimLeft(line, " \t")
		pending := override
		override = ""
		switch {
		case strings.TrimSpace(s) == "":
			continue
		case s[0] == '#':
			if name, ok := overrideName(s); ok {
				if taskname.Valid(name) {
					override = name
				} else {
					notes = append(notes, fmt.Sprintf("line %d: %v; the next line's name is derived from its command", i+1, taskname.Check(name)))
				}
			}
			continue
		}
		if name, val, ok := envLine(s); ok {
			env.set(name, val)
			if name == "PATH" {
				pathLine = i + 1
			}
			continue
		}
		prefix, cmd, ok := jobCommand(line, system)
		if !ok {
			if strings.HasPrefix(s, "@reboot") {
				notes = append(notes, fmt.Sprintf("line %d: @reboot has no time slot to replay; left as is", i+1))
			} else {
				notes = append(notes, fmt.Sprintf("line %d: left as is: %v", i+1, notAJob(s, system)))
			}
			continue
		}
		if isCatchupCommand(cmd) {
			if err := refusedCatchupLine(line, system, knownUser); err != nil {
				notes = append(notes, fmt.Sprintf("line %d: left as is: it runs catchup already, but scan and catchup daemon refuse it: %v", i+1, err))
			}
			continue
		}
		if n := extraTimeFields(cmd); !system && n > 0 && !strings.HasPrefix(strings.TrimLeft(prefix, " \t-"), "@") {
			// Wrapped, the 6th field would read as the command: the daemon and
			// scan refuse the line as it is.
			notes = append(notes, fmt.Sprintf("line %d: left as is: %v", i+1, timeFieldCount(5+n, "the command")))
			continue
		}
		if f, _ := splitFields(cmd, 1); !system && len(f) == 1 && (f[0] == "root" || userField != nil && userField(cmd)) {
			// A system crontab's line (a copy of /etc/crontab) read as a
			// user's: wrapped, it would run catchup as a user named catchup.
			notes = append(notes, fmt.Sprintf("line %d: left as is: the command starts with %q, a user name and no command: is this a system crontab "+
				"(a user field after the time fields, as /etc/crontab's)? then wrap it with --system", i+1, Redacted(f[0])))
			continue
		}
		name := pending
		if name == "" {
			name = uniqueName(DeriveName(cmd), derivable)
		} else if taken[name] {
			notes = append(notes, fmt.Sprintf("line %d: task name %q is used by another line too; one task would stand for both", i+1, name))
		}
		shell := "sh"
		if v := env.vals["SHELL"]; v != "" && isPlain(v) {
			shell = v
		}
		cr := ""
		if strings.HasSuffix(cmd, "\r") { // a CRLF file: keep its line ends
			cmd, cr = cmd[:len(cmd)-1], "\r"
		}
		wrapped := prefix + wrapCommand(cmd, name, shell) + cr
		e, ok, err := parseLine(cString(wrapped), system, &variables{})
		if !ok || err != nil {
			notes = append(notes, fmt.Sprintf("line %d: left as is: wrapped, it would not read as a catchup line (%v)", i+1, err))
			continue
		}
		if err := wrappable(e, system, knownUser); err != nil {
			notes = append(notes, fmt.Sprintf("line %d: left as is: %v", i+1, err))
			continue
		}
		taken[name], derivable[name] = true, true
		lines[i] = wrapped
		changes = append(changes, Change{Line: i + 1, Old: line, New: lines[i], Task: name, PathLine: pathLine, Path: env.vals["PATH"]})
	}
	return strings.Join(lines, "\n"), changes, notes
}

// existingEntries are the catchup lines text already has.
func existingEntries(text string, system bool) []Entry {
	entries, _ := Parse(strings.NewReader(text), "", system)
	return entries
}

// overrideName reads "# catchup: task=NAME".
func overrideName(comment string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(strings.TrimPrefix(comment, "#"), " \t"), overrideMark)
	if !ok {
		return "", false
	}
	return strings.CutPrefix(strings.TrimSpace(rest), "task=")
}

// jobCommand splits a job line into its head (time fields, user, and the
// blanks after them, as written) and its command. ok is false for a line
// that is no job cron would run at a time: too few fields, @reboot.
func jobCommand(line string, system bool) (prefix, cmd string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(s, "-") && len(s) > 1 && s[1] != ' ' && s[1] != '\t' {
		s = s[1:]
	}
	if s == "" { // nothing before a NUL: cron reads no job there
		return "", "", false
	}
	nTime := 5
	if s[0] == '@' {
		if !isMacro(strings.Fields(s)[0]) || strings.HasPrefix(s, "@reboot") {
			return "", "", false
		}
		nTime = 1
	}
	if system {
		nTime++
	}
	head, rest := splitFields(s, nTime)
	if len(head) < nTime || rest == "" || nTime >= 5 && !allTimeLike(head[:5]) {
		return "", "", false
	}
	return line[:len(line)-len(rest)], rest, true
}

// isCatchupCommand reports whether cmd already runs catchup.
func isCatchupCommand(cmd string) bool {
	lx := &lexer{s: cmd}
	w, ok, err := lx.next()
	return ok && err == nil && isCatchupWord(w)
}

// wrapCommand prefixes cmd (the text after the time fields, as written in
// the crontab) with `catchup run --task name --`.
func wrapCommand(cmd, name, shell string) string {
	head := "catchup run --task " + name + " -- "
	cut := percentAt(cmd)
	body, tail := cmd[:cut], cmd[cut:]
	trimmed := strings.TrimRight(body, " \t")
	if w := firstWord(trimmed); isPlain(trimmed) && !strings.Contains(w, "=") && !shellOnly[w] {
		return head + cmd
	}
	return head + shell + " -c " + singleQuote(trimmed) + body[len(trimmed):] + tail
}

// percentAt is the index of cron's first unescaped % in cmd, else len(cmd).
func percentAt(cmd string) int {
	escaped := false
	for i := 0; i < len(cmd); i++ {
		switch {
		case escaped:
			escaped = false
		case cmd[i] == '\\':
			escaped = true
		case cmd[i] == '%':
			return i
		}
	}
	return len(cmd)
}

// isPlain reports whether s holds only characters a shell takes literally
// and blanks: then catchup can run its words directly.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(" \t_./=:,@+-", c) >= 0) {
			return false
		}
	}
	return s != ""
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// singleQuote quotes s for sh in single quotes; a single quote inside
// closes the quotes, adds an escaped quote and reopens them.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// uniqueName returns name, or name-2, name-3... the first not taken.
func uniqueName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for n := 2; ; n++ {
		c := fmt.Sprintf("%s-%d", name, n)
		if len(c) > 128 {
			c = fmt.Sprintf("%s-%d", name[:128-len(c)+len(name)], n)
		}
		if !taken[c] {
			return c
		}
	}
}

// userName is what a system crontab's user field holds: a login name
// (useradd's rule, with the '@' of directory users), never a path or a
// command's word such as "./job.sh".
var userName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.@-]*\$?$`) })

// wrappable reports why the job line e (as wrapped) is better left as it
// is: a schedule that cron refuses or that never fires (catchup would run
// it no more than cron), or, read as a system crontab, a user field that
// is no user name (a user crontab read with --system: its command's first
// word taken for the user).
func wrappable(e Entry, system bool, knownUser func(string) bool) error {
	if _, err := schedule.ParseCrontab(e.Expr, time.UTC); err != nil {
		return err
	}
	if system && !userName().MatchString(e.User) {
		// the field is the command's first word, often a secret (PGPASSWORD=X)
		return fmt.Errorf("%q in the user field is not a user name: is this a user crontab? (then read it without --system)", Redacted(e.User))
	}
	if system && knownUser != nil && !knownUser(e.User) {
		return fmt.Errorf("user %q does not exist on this host: is this a user crontab? (then read it without --system)", Redacted(e.User))
	}
	return nil
}
