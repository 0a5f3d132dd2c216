// Package termsafe escapes text that someone else wrote before it reaches a
// terminal: control characters, invalid UTF-8, C1 controls and bidi
// overrides become Go-style escapes (\x1b, \u202e), so that they cannot
// retitle the terminal, rewrite the screen (erase or forge the lines above),
// or set the clipboard (OSC 52). cmd prints stored fields through it; scan
// passes the output of another user's replayed line through Writer.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Escape escapes s; with text, newlines and tabs pass (the text keeps its
// lines), else they are escaped too (one line of a table or a message).
func Escape(s string, text bool) string {
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
		case UnsafeRune(r):
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

// UnsafeRune is a C1 control (8-bit CSI, OSC... in some terminals) or a
// character that reorders what follows it on screen.
func UnsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// Writer escapes what is written to it as text (Escape), then writes it to
// W. A UTF-8 sequence split across two writes is kept until it is whole;
// Flush writes what is left (escaped, if it never was whole).
type Writer struct {
	W io.Writer
	// Prefix, when set, starts every line written (another user's job:
	// its lines never read as the writer's own, however they begin).
	Prefix  string
	pending []byte
	midLine bool // a line was begun: its prefix is written
}

// Write escapes p and writes it to w.W; it reports all of p written unless
// w.W fails.
func (w *Writer) Write(p []byte) (int, error) {
	buf := append(w.pending, p...)
	cut := len(buf) - partialRune(buf)
	w.pending = append([]byte(nil), buf[cut:]...)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(w.W, w.prefixed(Escape(string(buf[:cut]), true))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// prefixed is escaped text s with Prefix at the start of each line; a
// line's prefix is written with its first byte, not after the newline
// before it.
func (w *Writer) prefixed(s string) string {
	if w.Prefix == "" || s == "" {
		return s
	}
	var b strings.Builder
	for s != "" {
		if !w.midLine {
			b.WriteString(w.Prefix)
			w.midLine = true
		}
		line, rest, ended := strings.Cut(s, "\n")
		b.WriteString(line)
		if ended {
			b.WriteByte('\n')
			w.midLine = false
		}
		s = rest
	}
	return b.String()
}

// Flush writes what a last Write kept back.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(w.W, w.prefixed(Escape(string(w.pending), true)))
	w.pending = nil
	return err
}

// partialRune is how many bytes at the end of b start a UTF-8 sequence
// that b does not finish (0 to 3).
func partialRune(b []byte) int {
	for n := 1; n <= utf8.UTFMax-1 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 { // a start byte: is its sequence cut?
			if !utf8.FullRune(b[len(b)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
