package redact

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// This file finds a command's program, whose options may be its secrets
// (options.go: mysql's glued -pX, sshpass's -p X, ...; and curl's, from
// any word that names it: curl.go). The program is the command word: the
// first word of a simple command that is no VAR=value assignment, after
// env, sudo, nice, exec and the like (and after the -- of catchup run); a
// `sh -c` line is a command line of its own.

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
	return rewrite(line, func(words []string) []string { return byProgram(words, true) })
}

// rewrite is line with each simple command's words as mask has them.
func rewrite(line string, mask func(words []string) []string) string {
	var spans []span
	var with []string
	for _, cmd := range simpleCommands(line) {
		words := make([]string, len(cmd))
		for i, sp := range cmd {
			words[i] = line[sp.start:sp.end]
		}
		for i, w := range mask(words) {
			if w != words[i] {
				spans, with = append(spans, cmd[i]), append(with, w)
			}
		}
	}
	return splice(line, spans, with)
}

// splice is line with each span replaced by its with, in one pass: spans
// come in the order of the line, apart (spliced one by one into the whole
// line, a line of 8,000 masks was copied 8,000 times over).
func splice(line string, spans []span, with []string) string {
	if len(spans) == 0 {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	prev := 0
	for i, sp := range spans {
		if sp.start < prev { // not in order: one at a time, from the end
			for i := len(spans) - 1; i >= 0; i-- {
				line = line[:spans[i].start] + with[i] + line[spans[i].end:]
			}
			return line
		}
		b.WriteString(line[prev:sp.start])
		b.WriteString(with[i])
		prev = sp.end
	}
	b.WriteString(line[prev:])
	return b.String()
}

// byProgram is words (one simple command's, quoted as written when quoted
// is true, else an argv) with the secrets masked that are options of its
// program, and of the program a wrapper runs (docker exec, kubectl exec,
// ssh: wrappers.go), and so on down.
func byProgram(words []string, quoted bool) []string {
	out := slices.Clone(words)
	p := program(words)
	if p < 0 {
		return out
	}
	for q := p; q >= 0; {
		programOptions(words, out, q, quoted) // options.go
		r := wrapped(words, q)
		if r < 0 {
			break
		}
		if q = program(words[r:]); q >= 0 {
			q += r
		}
	}
	if quoted {
		quotedLines(words, out, p)
	}
	curlWords(words, out, quoted) // curl's, wherever a word names it (curl.go)
	return out
}

// quotedLines masks, in out, the secrets of the command lines held by the
// words after the program that are quoted whole (ssh db "mysql -pX"), as
// Argv masks such a word: its text as a command line of its own.
func quotedLines(words, out []string, p int) {
	for k := p + 1; k < len(words); k++ {
		w := out[k]
		if len(w) > 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] && w == words[k] {
			if m := programs(w[1 : len(w)-1]); m != w[1:len(w)-1] {
				out[k] = w[:1] + m + w[:1]
			}
		}
	}
}

// shellC reports whether w is a group of a shell's short options with c
// among them: -c, -ec, -lc (^-[a-z]*c[a-z]*$, no regexp to compile on a
// fire's path).
func shellC(w string) bool {
	if len(w) < 2 || w[0] != '-' || !strings.Contains(w, "c") {
		return false
	}
	for _, c := range []byte(w[1:]) {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

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
		if strings.Contains(w, "=") && assignment().MatchString(w) {
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
// program. A word that has none is returned as it is (a Replacer built at
// each call cost a scan 6 KB per word, most of what a crontab line cost it).
func unquote(w string) string {
	if !strings.ContainsAny(w, `'"\`) {
		return w
	}
	return unquoter.Replace(w)
}

// unquoter drops quotes and backslashes (unquote).
var unquoter = strings.NewReplacer(`'`, "", `"`, "", `\`, "")
