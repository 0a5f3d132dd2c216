package redact

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// This file masks what is a secret only as an option of a command's
// program: mysql's glued -pX, sshpass's -p X, the password of curl's
// -u/--user USER:PASSWORD (and -U/--proxy-user), redis-cli's -a X and
// --pass X. The program is the command
// word: the first word of a simple command that is no VAR=value
// assignment, after env, sudo, nice, exec and the like (and after the --
// of catchup run); a `sh -c` line is a command line of its own.

// span is one word of a command line, quotes kept: line[start:end].
type span struct{ start, end int }

// simpleCommands splits line into its simple commands, each as its words:
// at an unquoted blank a word ends, at ; & | ( ) ` or a newline a command.
func simpleCommands(line string) [][]span {
	var cmds [][]span
	var cur []span
	start := -1
	endWord := func(i int) {
		if start >= 0 {
			cur = append(cur, span{start, min(i, len(line))})
			start = -1
		}
	}
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			endWord(i)
		case strings.IndexByte(";&|()`\n", c) >= 0:
			endWord(i)
			if len(cur) > 0 {
				cmds, cur = append(cmds, cur), nil
			}
		default:
			if start < 0 {
				start = i
			}
			if c == '\\' {
				i++
			} else if c == '\'' || c == '"' {
				i++
				for i < len(line) && line[i] != c {
					if c == '"' && line[i] == '\\' {
						i++
					}
					i++
				}
			}
		}
	}
	endWord(len(line))
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

// programs is line with the secrets masked that are options of its
// commands' programs.
func programs(line string) string {
	var spans []span
	var with []string
	for _, cmd := range simpleCommands(line) {
		words := make([]string, len(cmd))
		for i, sp := range cmd {
			words[i] = line[sp.start:sp.end]
		}
		for i, w := range byProgram(words, true) {
			if w != words[i] {
				spans, with = append(spans, cmd[i]), append(with, w)
			}
		}
	}
	for i := len(spans) - 1; i >= 0; i-- {
		line = line[:spans[i].start] + with[i] + line[spans[i].end:]
	}
	return line
}

// byProgram is words (one simple command's, quoted as written when quoted
// is true, else an argv) with the secrets masked that are options of its
// program.
func byProgram(words []string, quoted bool) []string {
	out := slices.Clone(words)
	p := program(words)
	if p < 0 {
		return out
	}
	switch filepath.Base(unquote(words[p])) {
	case "mysql", "mariadb", "mysqldump", "mysqladmin", "mariadb-dump":
		for i := p + 1; i < len(words); i++ {
			if w := words[i]; len(w) > 2 && strings.HasPrefix(w, "-p") && !reference(w[2:]) {
				out[i] = "-p" + Mask
			}
		}
	case "sshpass": // its options, up to the command it runs
		for i := p + 1; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
			switch w := words[i]; {
			case w == "-p" && i+1 < len(words):
				if i++; !reference(words[i]) {
					out[i] = masked(words[i])
				}
			case strings.HasPrefix(w, "-p") && !reference(w[2:]):
				out[i] = "-p" + Mask
			case w == "-f" || w == "-d" || w == "-P":
				i++
			}
		}
	case "curl": // -u USER:PASSWORD, -uUSER:PASSWORD, --user=USER:PASSWORD
		for i := p + 1; i < len(words); i++ {
			switch flag, v, glued := userOption(words[i]); {
			case glued:
				out[i] = flag + userPassword(v)
			case flag != "" && i+1 < len(words):
				i++
				out[i] = userPassword(words[i])
			}
		}
	case "redis-cli": // -a X, --pass X
		for i := p + 1; i+1 < len(words); i++ {
			if w := words[i]; w == "-a" || w == "--pass" {
				if i++; !reference(words[i]) && words[i] != Mask {
					out[i] = masked(words[i])
				}
			}
		}
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		for i := p + 1; i+1 < len(words) && strings.HasPrefix(words[i], "-"); i++ {
			if shellC().MatchString(words[i]) {
				out[i+1] = shellLine(words[i+1], quoted)
				break
			}
		}
	}
	return out
}

// userOption splits a word of curl's that names its user and password:
// flag is -u, --user, -U or --proxy-user (with its = when glued), and v
// the USER:PASSWORD glued to it (glued), if any.
func userOption(w string) (flag, v string, glued bool) {
	for _, f := range []string{"--user", "--proxy-user", "-u", "-U"} {
		switch {
		case w == f:
			return f, "", false
		case strings.HasPrefix(f, "--") && strings.HasPrefix(w, f+"="):
			return f + "=", w[len(f)+1:], true
		case !strings.HasPrefix(f, "--") && strings.HasPrefix(w, f) && len(w) > len(f):
			return f, w[len(f):], true
		}
	}
	return "", "", false
}

// userPassword is v (USER:PASSWORD, quoted as written or not) with what
// follows its first colon masked, the user kept. A value without a colon
// (or with nothing after it) has no password; a password that is a shell
// reference is kept.
func userPassword(v string) string {
	q := ""
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		q, v = v[:1], v[1:len(v)-1]
	}
	user, pass, ok := strings.Cut(v, ":")
	if !ok || pass == "" || pass == Mask || (q != "'" && reference(pass)) {
		return q + v + q
	}
	return q + user + ":" + Mask + q
}

var shellC = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[a-z]*c[a-z]*$`) })

// shellLine is a `sh -c` command line with its secrets masked; quoted, it
// is one word as written, its quotes kept.
func shellLine(w string, quoted bool) string {
	if quoted && len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return w[:1] + Command(w[1:len(w)-1]) + w[:1]
	}
	return Command(w)
}

// program is the index of words' command word, or -1: the first word that
// is no assignment, nor a wrapper (env, sudo, nice, ...) or its option.
func program(words []string) int {
	for i := 0; i < len(words); i++ {
		w := unquote(words[i])
		if assignment().MatchString(w) {
			continue
		}
		switch filepath.Base(w) {
		case "catchup": // catchup run [flags] -- CMD
			if j := slices.Index(words[i:], "--"); j > 0 {
				i += j
				continue
			}
			return i
		case "env", "sudo", "nice", "ionice", "exec", "nohup", "time", "command", "timeout", "doas":
			for i+1 < len(words) && strings.HasPrefix(words[i+1], "-") {
				if o := words[i+1]; o == "-n" || o == "-u" || o == "-g" || o == "-c" || o == "-s" || o == "-k" {
					i++
				}
				i++
			}
			if filepath.Base(w) == "timeout" && i+1 < len(words) {
				i++ // its duration
			}
			continue
		}
		return i
	}
	return -1
}

var assignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// unquote is a word without its quotes and backslashes: enough to name a
// program.
func unquote(w string) string {
	return strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(w)
}
