package cmd

import "testing"

func TestPrintable(t *testing.T) {
	tests := map[string]struct{ in, line, text string }{
		"plain":             {"host-1 ok", "host-1 ok", "host-1 ok"},
		"utf-8 passes":      {"zürich ✓", "zürich ✓", "zürich ✓"},
		"escape sequence":   {"a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		"osc 52 clipboard":  {"\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`, `\x1b]52;c;aGk=\x07`},
		"newline and tab":   {"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		"carriage return":   {"50%\r100%", `50%\r100%`, `50%\r100%`},
		"delete":            {"a\x7fb", `a\x7fb`, `a\x7fb`},
		"c1 control (csi)":  {"a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
		"bidi override":     {"evil\u202etxt.exe", `evil\u202etxt.exe`, `evil\u202etxt.exe`},
		"invalid utf-8":     {"a\xffb", `a\xffb`, `a\xffb`},
		"nul":               {"a\x00b", `a\x00b`, `a\x00b`},
		"lone continuation": {"\x9b[31m", `\x9b[31m`, `\x9b[31m`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := printable(tc.in); got != tc.line {
				t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := printableText(tc.in); got != tc.text {
				t.Errorf("printableText(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func FuzzPrintable(f *testing.F) {
	f.Add("a\x1b[2Jb\n\xff\u009b")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{printable(s), printableText(s)} {
			for _, r := range out {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || unsafeRune(r) {
					t.Fatalf("%q left %U in %q", s, r, out)
				}
			}
		}
	})
}
