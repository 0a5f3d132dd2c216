package termsafe

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzWriter: whatever the writes are cut into, Writer writes what Escape
// makes of the whole (a UTF-8 sequence split across writes stays one
// character), and leaves no control character but newline and tab.
func FuzzWriter(f *testing.F) {
	f.Add("a\x1b[2Jz\xc3\xbcrich\r\n\xff\u202e", 4)
	f.Add("\xe2\x9c\x93\xe2\x9c", 2)
	f.Add("catchup: warning: forged\n\nend\n", 3)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var out bytes.Buffer
		w := &Writer{W: &out}
		if cut <= 0 {
			cut = 1
		}
		for i := 0; i < len(s); i += cut {
			w.Write([]byte(s[i:min(i+cut, len(s))]))
		}
		w.Flush()
		if got, want := out.String(), Escape(s, true); got != want {
			t.Fatalf("writes of %d bytes of %q gave %q, want %q", cut, s, got, want)
		}
		for _, r := range out.String() {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || UnsafeRune(r) {
				t.Fatalf("%q left %U", s, r)
			}
		}
		// With a Prefix, every line written starts with it, and the rest
		// is what Escape makes of the whole.
		var pout bytes.Buffer
		pw := &Writer{W: &pout, Prefix: "u/t| "}
		for i := 0; i < len(s); i += cut {
			pw.Write([]byte(s[i:min(i+cut, len(s))]))
		}
		pw.Flush()
		var want strings.Builder
		for line := range strings.Lines(Escape(s, true)) {
			want.WriteString("u/t| " + line)
		}
		if got := pout.String(); got != want.String() {
			t.Fatalf("writes of %d bytes of %q with a prefix gave %q, want %q", cut, s, got, want.String())
		}
	})
}
