package docstest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A block is one ```console block of a Markdown file.
type block struct {
	line  int      // the line of its opening fence
	setup []string // the hidden setup (<!-- docs-test ... -->) right before it
	cmds  []command
}

// A command is one "$ " line of a block and the output the block shows for it.
type command struct {
	line   int      // its line in the Markdown file
	text   string   // without the "$ "
	want   []string // the output lines, comments and "(exit N)" removed
	status int      // the "(exit N)" after the output, else 0
}

var exitLine = regexp.MustCompile(`^\(exit (\d+)\)$`)

// parseBlocks returns the console blocks of a Markdown text in order.
func parseBlocks(src string) ([]block, error) {
	lines := strings.Split(src, "\n")
	var blocks []block
	var setup []string
	setupLine := 0 // the line of a setup comment not yet attached to a block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "<!-- docs-test"):
			if setupLine != 0 {
				return nil, fmt.Errorf("line %d: a docs-test comment must be followed by a ```console block", setupLine)
			}
			setupLine = i + 1
			var body []string
			for ; ; i++ {
				if i == len(lines) {
					return nil, fmt.Errorf("line %d: unterminated docs-test comment", setupLine)
				}
				body = append(body, lines[i])
				if strings.Contains(lines[i], "-->") {
					break
				}
			}
			text := strings.Join(body, "\n")
			text = strings.TrimPrefix(text, "<!-- docs-test")
			text = strings.TrimPrefix(text, ":")
			text, _, _ = strings.Cut(text, "-->")
			setup = nil
			for s := range strings.SplitSeq(text, "\n") {
				if s = strings.TrimSpace(s); s != "" {
					setup = append(setup, s)
				}
			}
		case strings.HasPrefix(l, "```console"):
			start := i + 1
			i++
			var body []string
			for ; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("line %d: unterminated console block", start)
			}
			cmds, err := parseCommands(body, start+1)
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, block{line: start, setup: setup, cmds: cmds})
			setup, setupLine = nil, 0
		case strings.HasPrefix(l, "```"):
			// another fenced block: skip it whole, it may hold anything
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			}
			if setupLine != 0 {
				return nil, fmt.Errorf("line %d: a docs-test comment must be followed by a ```console block", setupLine)
			}
		case strings.TrimSpace(l) != "" && setupLine != 0:
			return nil, fmt.Errorf("line %d: a docs-test comment must be followed by a ```console block", setupLine)
		}
	}
	if setupLine != 0 {
		return nil, fmt.Errorf("line %d: a docs-test comment must be followed by a ```console block", setupLine)
	}
	return blocks, nil
}

// parseCommands splits the lines of a block, the first of which is line
// first of the file, into commands with their output. "#" lines right before
// a command (or before another such line) are comments.
func parseCommands(lines []string, first int) ([]command, error) {
	var cmds []command
	var out []string
	finish := func() {
		if len(cmds) == 0 {
			return
		}
		c := &cmds[len(cmds)-1]
		if n := len(out); n > 0 {
			if m := exitLine.FindStringSubmatch(out[n-1]); m != nil {
				c.status, _ = strconv.Atoi(m[1])
				out = out[:n-1]
			}
		}
		c.want = out
	}
	for i, l := range lines {
		text, ok := strings.CutPrefix(l, "$ ")
		if !ok {
			out = append(out, l)
			continue
		}
		k := len(out)
		for k > 0 && strings.HasPrefix(out[k-1], "#") {
			k--
		}
		out = out[:k]
		if len(cmds) == 0 && len(out) > 0 {
			return nil, fmt.Errorf("line %d: output before the block's first command", first)
		}
		finish()
		cmds = append(cmds, command{line: first + i, text: text})
		out = nil
	}
	finish()
	if len(cmds) == 0 {
		return nil, fmt.Errorf("line %d: a console block without a command", first-1)
	}
	return cmds, nil
}
