package cmd

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Terminal safety: what catchup prints of stored fields (a job's output and
// checkpoint notes, another host's name on a shared ledger, an error quoting
// a command) could carry escape sequences that drive the reader's terminal:
// retitle it, rewrite the screen, or set the clipboard (OSC 52). Every such
// field is printed through printable, which shows control characters,
// invalid UTF-8 and bidirectional overrides as Go-style escapes (\x1b,
// \u202e). Only `show --raw` prints output tails as they are.

// printable escapes s for one line of a table or a message.
func printable(s string) string {
	return escape(s, false)
}

// printableText escapes text that keeps its line structure: newlines and
// tabs pass, every other control character is escaped.
func printableText(s string) string {
	return escape(s, true)
}

func escape(s string, text bool) string {
	if isPlain(s, text) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case text && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether s needs no escaping (the common case: no copy).
func isPlain(s string, text bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false // decode it: invalid UTF-8, C1 controls, bidi overrides
		}
		if (c < 0x20 || c == 0x7f) && !(text && (c == '\n' || c == '\t')) {
			return false
		}
	}
	return true
}

// unsafeRune is a C1 control (8-bit CSI, OSC... in some terminals) or a
// character that reorders what follows it on screen.
func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200e || r == 0x200f || r == 0x061c
}
