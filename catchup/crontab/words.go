package crontab

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/catchup/catchup/catchup/taskname"
)

// lexer is a light POSIX shell word splitter: it handles blanks,
// backslash escapes, single quotes and double quotes (with their backslash
// escapes), and ends at a comment or an unquoted control or redirection
// operator character. It does not expand anything.
type lexer struct {
	s    string
	i    int
	done bool
	// expands says that the last word next returned has a $ or a `
	// outside single quotes, unescaped: the shell expands it.
	expands bool
	// raw is that word as the line writes it, its quotes kept.
	raw string
}

const operators = ";&|<>()"

// next returns the next word; ok is false at the end of the simple command.
func (l *lexer) next() (word string, ok bool, err error) {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t' || l.s[l.i] == '\n') {
		l.i++
	}
	if l.done || l.i >= len(l.s) || l.s[l.i] == '#' || strings.IndexByte(operators, l.s[l.i]) >= 0 {
		l.done = true
		return "", false, nil
	}
	var w []byte
	l.expands = false
	start := l.i
	defer func() { l.raw = l.s[start:l.i] }()
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || strings.IndexByte(operators, c) >= 0:
			return string(w), true, nil
		case c == '\\' && l.i+1 < len(l.s):
			if l.s[l.i+1] != '\n' {
				w = append(w, l.s[l.i+1])
			}
			l.i += 2
		case c == '\'':
			end := strings.IndexByte(l.s[l.i+1:], '\'')
			if end < 0 {
				l.done = true
				return "", false, fmt.Errorf("unterminated single quote: %w", errQuote)
			}
			w = append(w, l.s[l.i+1:l.i+1+end]...)
			l.i += end + 2
		case c == '"':
			if w, err = l.doubleQuoted(w); err != nil {
				return "", false, err
			}
		default:
			l.expands = l.expands || c == '$' || c == '`'
			w = append(w, c)
			l.i++
		}
	}
	return string(w), true, nil
}

// doubleQuoted appends the contents of the double-quoted string at l.i to w.
func (l *lexer) doubleQuoted(w []byte) ([]byte, error) {
	for j := l.i + 1; j < len(l.s); j++ {
		switch c := l.s[j]; {
		case c == '"':
			l.i = j + 1
			return w, nil
		case c == '\\' && j+1 < len(l.s) && strings.IndexByte("$`\"\\\n", l.s[j+1]) >= 0:
			j++
			if l.s[j] != '\n' {
				w = append(w, l.s[j])
			}
		default:
			l.expands = l.expands || c == '$' || c == '`'
			w = append(w, c)
		}
	}
	l.done = true
	return nil, fmt.Errorf("unterminated double quote: %w", errQuote)
}

// splitPercent applies cron's % rule to the command part of a line:
// the command ends at the first unescaped %, `\%` in it becomes %, and other
// backslashes are kept. cut reports whether an unescaped % was found.
func splitPercent(s string) (cmd, stdin string, cut bool) {
	buf := make([]byte, 0, len(s))
	escaped := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
			if c == '%' {
				buf[len(buf)-1] = '%'
				continue
			}
		case c == '\\':
			escaped = true
		case c == '%':
			return string(buf), stdinData(s[i+1:]), true
		}
		buf = append(buf, c)
	}
	return string(buf), "", false
}

// stdinData translates the input part as cron writes it to the pipe:
// `\%` becomes %, an unescaped % a newline, `\x` stays `\x`, and a newline is
// added when the data does not already end with one.
func stdinData(s string) string {
	buf := make([]byte, 0, len(s)+1)
	escaped, needNewline := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if escaped {
			if c != '%' {
				buf = append(buf, '\\')
			}
		} else if c == '%' {
			c = '\n'
		}
		if escaped = c == '\\'; !escaped {
			buf = append(buf, c)
			needNewline = c != '\n'
		}
	}
	if escaped {
		buf = append(buf, '\\')
	}
	if needNewline {
		buf = append(buf, '\n')
	}
	return string(buf)
}

// misplaced explains a job line that mentions `catchup ... run` but is not
// a catchup line scan can read: the time fields look miscounted, a user
// field stands in a user crontab, or the command does not start with
// catchup. nil when the line does not mention catchup run.
func misplaced(s string, nTime, nHead int, system bool) error {
	toks, _ := splitFields(s, nHead+10)
	j := -1
	for i := 0; i+1 < len(toks) && j < 0; i++ {
		if !isCatchupWord(toks[i]) {
			continue
		}
		for _, t := range toks[i+1 : min(i+6, len(toks))] {
			if t == "run" {
				j = i
				break
			}
		}
	}
	switch {
	case j < 0:
		return nil
	case j == nHead:
		return fmt.Errorf("%s is not followed by run or by --db, --host, --lease and run: scan does not discover this line", toks[j])
	case nTime == 1 && system && j == 1:
		return errors.New("missing user field before the command (system crontab)")
	case nTime == 1 && j == nHead+1 && isMacro(toks[0]):
		return userField(toks[j-1], system)
	case nTime == 1 && j > nHead:
		return fmt.Errorf("%s is not a cron macro catchup knows (or has extra fields): use 5 time fields or @hourly/@daily/@weekly/@monthly/@yearly", taskname.Quoted(toks[0]))
	case nTime == 1:
	case allTimeLike(toks[:j]):
		if system && j == 5 {
			return errors.New("missing user field before the command (system crontab)")
		}
		return timeFieldCount(j, "the command")
	case system && allTimeLike(toks[:j-1]):
		return timeFieldCount(j-1, "the user field")
	case j == nHead+1 && (nTime == 5 && allTimeLike(toks[:5]) || nTime == 1 && isMacro(toks[0])):
		return userField(toks[j-1], system)
	}
	return errors.New("mentions catchup run but the command does not start with it (scan replays only lines whose command is catchup run): scan does not discover this line")
}

// userField explains a system-format line in a user crontab.
func userField(word string, system bool) error {
	word = Redacted(word) // CATCHUP_DB='postgres://user:password@...'
	if system {
		return fmt.Errorf("the command starts with %q, not catchup: scan does not discover this line", word)
	}
	return fmt.Errorf("the command starts with %q, not catchup: if %q is a user field, this file is read as a user crontab (system crontabs are /etc/crontab and /etc/cron.d/*); scan does not discover this line", word, word)
}

// splitFields splits off up to n blank-separated fields; rest is the
// remainder with leading blanks removed.
func splitFields(s string, n int) (fields []string, rest string) {
	for len(fields) < n {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		fields, s = append(fields, s[:end]), s[end:]
	}
	return fields, strings.TrimLeft(s, " \t")
}

// isCatchupWord reports whether w names the catchup binary.
// mentionsCatchupRun reports whether a command runs `catchup ... run`
// somewhere in it (cd DIR && catchup run, VAR=value catchup run): run
// within the five words after a word naming catchup, as misplaced reads it.
func mentionsCatchupRun(cmd string) bool {
	toks := strings.Fields(cmd)
	for i, t := range toks {
		if isCatchupWord(t) && slices.Contains(toks[i+1:min(i+6, len(toks))], "run") {
			return true
		}
	}
	return false
}

func isCatchupWord(w string) bool {
	return w[strings.LastIndexByte(w, '/')+1:] == "catchup"
}
