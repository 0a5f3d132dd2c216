package catchup

import (
	"fmt"
	"strings"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// A crontab line's --notify-cmd that its shell expands at the fire
// ("$HOME/alert.sh", --notify-cmd=${PAGES}/page) is read here as that
// shell reads it, so that the scan that registers the line stores the
// alert the line's fire runs: with the variables cron gives the line and
// the crontab's own, nothing of scan's environment (cron's fire has none
// of it). Before, scan stored no alert for such a line, and the missed
// slots it alerted before the line's first fire paged no one, silently.
// A value that depends on anything else ($PAGER, `cmd`, $(cmd), ${X:-y},
// a word the shell would split or glob) is not guessed: scan warns, naming
// the line and the fix.

// lineShellVars is what the line's shell has in its environment at a fire,
// as cron sets it: SHELL, HOME (the line's home: the crontab's HOME=,
// else its user's), LOGNAME and USER (the line's user, which the crontab
// cannot change), and the crontab's variables above the line, as written.
func lineShellVars(m Machine, sr *shellReplay) map[string]string {
	set := map[string]string{"SHELL": "/bin/sh", "HOME": sr.dir}
	for _, kv := range sr.vars {
		k, v, _ := strings.Cut(kv, "=")
		set[k] = v
	}
	if _, name := lineRunsAs(m, sr); name != "" {
		set["LOGNAME"], set["USER"] = name, name
	} else {
		delete(set, "LOGNAME")
		delete(set, "USER")
	}
	return set
}

// expandedNotify is line e's --notify-cmd as its shell expands it at the
// fire (e.NotifyExpands), with vars; why says what it depends on that
// scan cannot know, and fix how to make it known ("" when expanded).
func expandedNotify(e crontab.Entry, vars map[string]string) (value, why, fix string) {
	if e.NotifyWord == "" {
		return "", "a quoted flag name, which only the fire reads", "write --notify-cmd unquoted"
	}
	x := &wordExpander{s: e.NotifyWord, vars: vars}
	value, why = x.expand()
	switch {
	case why == "":
		return value, "", ""
	case x.secret != "":
		return "", why, "keep the secret in a file the alert command reads"
	case x.unknown != "":
		return "", why, fmt.Sprintf("set %s in the crontab above the line, or write its value out", x.unknown)
	}
	return "", why, "write the value out, or name a script that does the rest"
}

// lineNotifyWarning says, for line e registered through sr, that scan
// cannot know the --notify-cmd its shell expands at the fire, so the task
// has no alert of its line's until then: "" when there is nothing to say.
func lineNotifyWarning(m Machine, sr *shellReplay, e crontab.Entry, where string) string {
	if sr == nil || sr.as != nil || !e.NotifyExpands {
		return ""
	}
	if _, why, fix := expandedNotify(e, lineShellVars(m, sr)); why != "" {
		return fmt.Sprintf("%s: the line's --notify-cmd %s is expanded by its shell at each fire, and holds %s: "+
			"scan cannot know the alert the fire runs, and stores none for task %s (its missed slots page no one); fix: %s",
			where, shownShell(e.NotifyWord), why, e.Task, fix)
	}
	return ""
}

// wordExpander expands one shell word as sh does, for what scan can know:
// quotes, backslashes, $NAME and ${NAME} of vars.
type wordExpander struct {
	s    string
	i    int
	vars map[string]string
	out  strings.Builder
	// lastName is the variable expanded last; unknown is the one that
	// stopped the expansion, being unset for the line.
	lastName, unknown string
	// secret is the variable that stopped the expansion, its name
	// saying that it holds a secret.
	secret string
}

// last names the variable expanded last, as the line writes it.
func (x *wordExpander) last() string { return "$" + x.lastName }

// isAlpha reports whether c is an ASCII letter.
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// shownShell is a piece of the line's word, for a warning: as written
// (its secrets masked) while it is short printable text, else quoted.
func shownShell(s string) string {
	s = redact.Command(s)
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f || i >= 64 {
			return taskname.Shown(s, 64)
		}
	}
	return s
}

func (x *wordExpander) expand() (string, string) {
	for x.i < len(x.s) {
		c := x.s[x.i]
		switch {
		case c == '\\':
			if x.i+1 < len(x.s) && x.s[x.i+1] != '\n' {
				x.out.WriteByte(x.s[x.i+1])
			}
			x.i += 2
		case c == '\'':
			end := strings.IndexByte(x.s[x.i+1:], '\'')
			if end < 0 {
				return "", "an unterminated quote"
			}
			x.out.WriteString(x.s[x.i+1 : x.i+1+end])
			x.i += end + 2
		case c == '"':
			if why := x.doubleQuoted(); why != "" {
				return "", why
			}
		case c == '`':
			return "", "a command substitution (`...`), which only the fire runs"
		case c == '$':
			v, why := x.parameter()
			if why != "" {
				return "", why
			}
			if strings.ContainsAny(v, " \t\n*?[") {
				return "", fmt.Sprintf("unquoted, %s is split into words or matched as a file pattern there", x.last())
			}
			if v == "" {
				return "", fmt.Sprintf("unquoted, %s is empty, and the word vanishes there", x.last())
			}
			x.out.WriteString(v)
		default:
			x.out.WriteByte(c)
			x.i++
		}
	}
	return x.out.String(), ""
}

// doubleQuoted expands the double-quoted part at x.i.
func (x *wordExpander) doubleQuoted() string {
	x.i++
	for x.i < len(x.s) {
		c := x.s[x.i]
		switch {
		case c == '"':
			x.i++
			return ""
		case c == '\\' && x.i+1 < len(x.s) && strings.IndexByte("$`\"\\\n", x.s[x.i+1]) >= 0:
			if x.s[x.i+1] != '\n' {
				x.out.WriteByte(x.s[x.i+1])
			}
			x.i += 2
		case c == '`':
			return "a command substitution (`...`), which only the fire runs"
		case c == '$':
			v, why := x.parameter()
			if why != "" {
				return why
			}
			x.out.WriteString(v)
		default:
			x.out.WriteByte(c)
			x.i++
		}
	}
	return "an unterminated quote"
}

// parameter expands the $ at x.i: $NAME or ${NAME} of vars; a $ that
// starts no expansion is itself.
func (x *wordExpander) parameter() (string, string) {
	start := x.i
	x.i++
	braced := x.i < len(x.s) && x.s[x.i] == '{'
	if braced {
		x.i++
	}
	n := x.i
	for n < len(x.s) && (x.s[n] == '_' || isAlpha(x.s[n]) || (n > x.i && x.s[n] >= '0' && x.s[n] <= '9')) {
		n++
	}
	name := x.s[x.i:n]
	x.i = n
	switch {
	case braced && (name == "" || n >= len(x.s) || x.s[n] != '}'):
		return "", fmt.Sprintf("%s, which only the fire expands", shownShell(x.s[start:min(len(x.s), n+1)]))
	case braced:
		x.i++
	case name == "" && x.i < len(x.s) && strings.IndexByte("({0123456789@*#?$!-'\"", x.s[x.i]) >= 0:
		return "", fmt.Sprintf("%s, which only the fire expands", shownShell(x.s[start:x.i+1]))
	case name == "":
		return "$", "" // a lone $: itself
	}
	v, ok := x.vars[name]
	if !ok {
		x.unknown = name
		return "", fmt.Sprintf("$%s, which cron does not set for the line nor the crontab above it", name)
	}
	if kv := name + "=" + v; v != "" && redact.Command(kv) != kv {
		// A secret by its name (HOOK_TOKEN=...): expanded, it would
		// reach the ledger whole, no shape of its value masked there.
		x.secret = name
		return "", fmt.Sprintf("$%s, a secret by its name, which the ledger does not keep", name)
	}
	x.lastName = name
	return v, ""
}
