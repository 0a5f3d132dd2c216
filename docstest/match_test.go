package docstest

import (
	"fmt"
	"strings"
	"testing"
)

// matchLine reports whether an output line matches a line of the block, in
// which "..." stands for any text. Trailing blanks are ignored on both sides.
func matchLine(want, got string) bool {
	want, got = strings.TrimRight(want, " \t"), strings.TrimRight(got, " \t")
	parts := strings.Split(want, "...")
	if len(parts) == 1 {
		return want == got
	}
	rest, ok := strings.CutPrefix(got, parts[0])
	if !ok {
		return false
	}
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, last)
}

// matchLines reports whether the output matches the block's lines one to one.
func matchLines(want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if !matchLine(want[i], got[i]) {
			return false
		}
	}
	return true
}

// diff shows the block's lines (-) against the output (+), line by line.
func diff(want, got []string) string {
	var b strings.Builder
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i < len(want) && i < len(got) && matchLine(want[i], got[i]):
			fmt.Fprintf(&b, "  %s\n", got[i])
		default:
			if i < len(want) {
				fmt.Fprintf(&b, "- %s\n", want[i])
			}
			if i < len(got) {
				fmt.Fprintf(&b, "+ %s\n", got[i])
			}
		}
	}
	return b.String()
}

func TestMatchLine(t *testing.T) {
	tests := map[string]struct {
		want, got string
		match     bool
	}{
		"exact":                 {"run 1 ok", "run 1 ok", true},
		"different":             {"run 1 ok", "run 2 ok", false},
		"trailing blanks":       {"nightly manual ", "nightly manual", true},
		"placeholder in middle": {"pid:       ...", "pid:       4711", true},
		"placeholder empty":     {"a...b", "ab", true},
		"placeholder at start":  {"...ms", "12ms", true},
		"two placeholders":      {"rid=... body='...'", "rid=4f-2a body='ok\\n'", true},
		"prefix must match":     {"pid: ...", "ppid: 1", false},
		"suffix must match":     {"...ms", "1.2s", false},
		"parts in order":        {"a...b...c", "a c b", false},
		"suffix not reused":     {"ab...b", "ab", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := matchLine(tt.want, tt.got); got != tt.match {
				t.Errorf("matchLine(%q, %q) = %v, want %v", tt.want, tt.got, got, tt.match)
			}
		})
	}
}

func TestParseBlocks(t *testing.T) {
	src := strings.Join([]string{
		"text",
		"```sh",
		"$ not a console block",
		"```",
		"<!-- docs-test",
		"resume",
		"-->",
		"",
		"```console",
		"# a comment",
		"$ catchup metrics | head -2",
		"# HELP x y",
		"x 1",
		"# a comment, not output",
		"$ false",
		"(exit 1)",
		"$ echo done",
		"done",
		"```",
	}, "\n")
	blocks, err := parseBlocks(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 {
		t.Fatalf("got %d blocks, want 1", len(blocks))
	}
	b := blocks[0]
	if b.line != 9 || len(b.setup) != 1 || b.setup[0] != "resume" {
		t.Errorf("block at line %d with setup %q, want line 9 and [resume]", b.line, b.setup)
	}
	want := []command{
		{line: 11, text: "catchup metrics | head -2", want: []string{"# HELP x y", "x 1"}},
		{line: 15, text: "false", status: 1},
		{line: 17, text: "echo done", want: []string{"done"}},
	}
	if fmt.Sprint(b.cmds) != fmt.Sprint(want) {
		t.Errorf("commands\n%v\nwant\n%v", b.cmds, want)
	}
	for name, bad := range map[string]string{
		"dangling setup":   "<!-- docs-test\nx\n-->\ntext\n```console\n$ true\n```",
		"unterminated":     "```console\n$ true\n",
		"output first":     "```console\nhello\n$ true\n```",
		"no command":       "```console\nhello\n```",
		"setup at the end": "<!-- docs-test: resume -->\n",
	} {
		if _, err := parseBlocks(bad); err == nil {
			t.Errorf("%s: parsed without an error", name)
		}
	}
}
