// Package taskname is the grammar of task names,
// [A-Za-z0-9][A-Za-z0-9._-]{0,127}. A name becomes a lock file name, so it
// can hold no path separator and cannot start with a dot.
package taskname

import (
	"fmt"
	"strconv"

	"github.com/catchup/catchup/catchup/redact"
)

// Valid reports whether name is in the grammar. (A loop, not a regexp: the
// {0,127} repetition costs half a millisecond to compile at every start of
// catchup.)
func Valid(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// Check returns an error, with the grammar in words, for a name outside it.
func Check(name string) error {
	if !Valid(name) {
		return fmt.Errorf("invalid task name %s: use 1-128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit", Quoted(redact.Value(name)))
	}
	return nil
}

// quotedMax is how many characters of a refused name an error shows.
const quotedMax = 64

// Quoted is a name (a task's, or a word given for one) as an error shows
// it: quoted with its control characters escaped (%q), and when longer
// than 64 characters cut to those with its length (`"aaa..."... (5000
// characters)`), so that one mistyped word never fills a screen.
func Quoted(name string) string { return QuotedUpTo(name, quotedMax) }

// Shown is s as an error shows a value it prints bare: bare while it is
// at most max characters with nothing to escape, else QuotedUpTo.
func Shown(s string, max int) string {
	if q := QuotedUpTo(s, max); q != `"`+s+`"` {
		return q
	}
	return s
}

// QuotedUpTo is Quoted cutting after max characters (a cron expression's
// or a zone's error shows more of it than a name's).
func QuotedUpTo(name string, max int) string {
	end, n := 0, 0
	for i := range name { // i: each character's start; an invalid byte is one
		if n == max {
			end = i
		}
		n++
	}
	if n <= max {
		return strconv.Quote(name)
	}
	return fmt.Sprintf("%q... (%d characters)", name[:end], n)
}
