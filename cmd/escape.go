package cmd

import "github.com/catchup/catchup/internal/termsafe"

// Terminal safety: what catchup prints of stored fields (a job's output and
// checkpoint notes, another host's name on a shared ledger, an error quoting
// a command) could carry escape sequences that drive the reader's terminal:
// retitle it, rewrite the screen, or set the clipboard (OSC 52). Every such
// field is printed through printable, which shows control characters,
// invalid UTF-8 and bidirectional overrides as Go-style escapes (\x1b,
// \u202e) (internal/termsafe). Only `show --raw` prints output tails as
// they are.

// printable escapes s for one line of a table or a message.
func printable(s string) string {
	return termsafe.Escape(s, false)
}

// printableText escapes text that keeps its line structure: newlines and
// tabs pass, every other control character is escaped.
func printableText(s string) string {
	return termsafe.Escape(s, true)
}

// unsafeRune is termsafe.UnsafeRune (FuzzPrintable checks none is left).
var unsafeRune = termsafe.UnsafeRune
