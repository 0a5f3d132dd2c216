package crontab

import "testing"

// TestBadlyQuotedVariable: a variable line whose quoted value cronie
// refuses (neither a variable nor a job) is told apart from a job line and
// from a variable cron takes.
func TestBadlyQuotedVariable(t *testing.T) {
	tests := map[string]struct {
		line string
		name string // "" = not a badly quoted variable
	}{
		"unterminated double":   {line: `D="unterminated`, name: "D"},
		"mixed quotes":          {line: `E='mixed"`, name: "E"},
		"text after the quote":  {line: `G="x" trailing`, name: "G"},
		"spaced":                {line: ` H = "lead`, name: ""}, // leading blanks are cut before
		"spaced after name":     {line: `H = "lead`, name: "H"},
		"quoted value":          {line: `F="ok value"`, name: ""},
		"unquoted value":        {line: `A=b c`, name: ""},
		"quote inside a value":  {line: `A=b"c`, name: ""},
		"job line with a quote": {line: `* * * * * X="y`, name: ""},
		"no name":               {line: `="x`, name: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, ok := badlyQuotedVariable(tc.line)
			if ok != (tc.name != "") || got != tc.name && ok {
				t.Errorf("badlyQuotedVariable(%q) = %q, %v; want %q", tc.line, got, ok, tc.name)
			}
		})
	}
}
