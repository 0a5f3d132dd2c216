package crontab

import (
	"path"
	"strings"
)

// wrappers are programs that run another command: the name comes from the
// command they run. The value is how many positional arguments come before
// it (flock's lock file, timeout's duration).
var wrappers = map[string]int{
	"env": 0, "nice": 0, "ionice": 0, "nohup": 0, "chronic": 0, "sudo": 0, "exec": 0,
	"command": 0, "time": 0, "flock": 1, "timeout": 1, "setlock": 1, "run-one": 0,
}

// interpreters run a script named by their first non-flag argument.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "python": true, "python3": true,
	"perl": true, "ruby": true, "node": true, "php": true, "Rscript": true,
}

// setup are commands that prepare rather than do the work: the name comes
// from a later command of the line.
var setup = map[string]bool{"cd": true, "sleep": true, "test": true, "[": true, "true": true, ":": true, "export": true, "source": true, ".": true, "umask": true}

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
		if !setup[prog] {
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
			if n, ok := wrappers[base]; ok {
				skip = n
				continue
			}
			if interpreters[base] {
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
