package crontab

import (
	"path"
	"strings"
)

// The tables of this file are switches, not maps: a package-level map is
// built at every process's start, which each fire pays (docs/performance.md).

// wrapper reports whether prog runs another command (the name comes from
// the command it runs), and how many positional arguments come before it
// (flock's lock file, timeout's duration).
func wrapper(prog string) (args int, ok bool) {
	switch prog {
	case "env", "nice", "ionice", "nohup", "chronic", "sudo", "exec", "command", "time", "run-one":
		return 0, true
	case "flock", "timeout", "setlock":
		return 1, true
	}
	return 0, false
}

// interpreter reports whether prog runs a script named by its first
// non-flag argument.
func interpreter(prog string) bool {
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "python", "python3", "perl", "ruby", "node", "php", "Rscript":
		return true
	}
	return false
}

// setup reports whether prog prepares rather than does the work: the name
// comes from a later command of the line.
func setup(prog string) bool {
	switch prog {
	case "cd", "sleep", "test", "[", "true", ":", "export", "source", ".", "umask":
		return true
	}
	return false
}

// DeriveName names the task of a crontab command: the program or script it
// runs (past env assignments, wrappers like nice or flock, interpreters,
// and setup commands like cd), without directory or extension, in the task
// name grammar. "job" when nothing fits.
func DeriveName(cmd string) string {
	cmd = cmd[:percentAt(cmd)]
	first := ""
	for _, words := range simpleCommands(cmd) {
		prog := programOf(words)
		if prog == "" {
			continue
		}
		if first == "" {
			first = prog
		}
		if !setup(prog) {
			return sanitize(prog)
		}
	}
	return sanitize(first)
}

// simpleCommands splits cmd at unquoted control operators into word
// lists, skipping redirections and their targets; a comment ends it.
func simpleCommands(cmd string) [][]string {
	var out [][]string
	for i := 0; i < len(cmd); {
		lx := &lexer{s: cmd[i:]}
		var words []string
		for {
			w, ok, err := lx.next()
			if !ok || err != nil {
				break
			}
			words = append(words, w)
		}
		out = append(out, words)
		from := i
		i += lx.i
		for i < len(cmd) && strings.IndexByte(operators+" \t", cmd[i]) >= 0 {
			if cmd[i] == '>' || cmd[i] == '<' {
				i = skipRedirect(cmd, i)
				continue
			}
			i++
		}
		if i == from || i < len(cmd) && cmd[i] == '#' {
			break
		}
	}
	return out
}

// skipRedirect skips a redirection operator and its target word.
func skipRedirect(cmd string, i int) int {
	for i < len(cmd) && strings.IndexByte("<>&", cmd[i]) >= 0 {
		i++
	}
	lx := &lexer{s: cmd[i:]}
	lx.next()
	return i + lx.i
}

// programOf is the name of the program a simple command runs, past
// assignments, wrappers and interpreters; "" when none.
func programOf(words []string) string {
	skip := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case skip > 0 && !strings.HasPrefix(w, "-"):
			skip--
		case strings.HasPrefix(w, "-"), isAssignment(w), strings.Trim(w, "0123456789") == "":
		default:
			base := path.Base(w)
			if n, ok := wrapper(base); ok {
				skip = n
				continue
			}
			if interpreter(base) {
				for _, a := range words[i+1:] {
					if !strings.HasPrefix(a, "-") {
						return strings.TrimSuffix(path.Base(a), path.Ext(a))
					}
					if a == "-c" {
						return base
					}
				}
				return base
			}
			if ext := path.Ext(base); ext != "" && ext != base {
				base = strings.TrimSuffix(base, ext)
			}
			return base
		}
	}
	return ""
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// sanitize maps s into the task name grammar.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	out := strings.TrimLeft(string(b), "._-")
	out = strings.TrimRight(out, "-")
	if len(out) > 64 {
		out = out[:64]
	}
	if out == "" {
		return "job"
	}
	return out
}
