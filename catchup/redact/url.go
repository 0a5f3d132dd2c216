package redact

import (
	"regexp"
	"strings"
	"sync"
)

// This file reads a URL's user info (the URL rules are in redact.go): in
// any URL-like word, with a scheme or scheme-less (//user:PW@host), in a
// shell line (its quotes the shell's) or an argv word (its quotes the
// password's own).

// urlStart is where a URL's user info starts: after scheme://, or after a
// scheme-less // that starts a word (or follows = ( , or a quote): never
// a path's /srv//x.
const urlStart = `([A-Za-z][A-Za-z0-9+.-]*://|(?:^|[^A-Za-z0-9+.:/\\-])//)`

// tokenUser reports whether a URL's lone user part is a token: a known
// token prefix, or 32 characters or more.
func tokenUser(u string) bool {
	for _, p := range []string{"ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxr-"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return len(u) >= 32
}

// argvURL is an argv word with a URL's password masked: as the URL rule
// masks it, but every quote in the word is the password's own
// (https://u:P'W@h), no shell's.
func argvURL(word string) string {
	re := argvURLRE()
	return re.ReplaceAllStringFunc(word, func(m string) string {
		sub := re.FindStringSubmatch(m)
		return keep(sub, sub[3], sub[1]+sub[2]+":"+Mask+"@")
	})
}

var argvURLRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(urlStart + `([^\s:/@]*):([^\s/]+)@`) })

// quoting is the quotes that stand for part's in a shell line after
// before (its quoting) then head: none when the quoting is the same after
// part as before it, else those that close what was open and open what is.
func quoting(before quoteScan, head, part string) string {
	before.feed(head)
	from := before.open
	to := quoteState(from, part)
	switch {
	case from == to:
		return ""
	case from == 0:
		return string(to)
	case to == 0:
		return string(from)
	}
	return string(from) + string(to)
}

// quoteScan is where a shell line's quoting stands after what was fed to
// it: the quote open (0 for none), and whether a backslash escapes the next
// character. Fed piece by piece, it reads a line once (a rule's matches
// each scanning the whole line before them cost a line of 8,000 URLs 2 s).
type quoteScan struct {
	open byte
	esc  bool
}

// feed reads s on from where q stands.
func (q *quoteScan) feed(s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case q.esc:
			q.esc = false
		case c == '\\' && q.open != '\'':
			q.esc = true
		case q.open == 0 && (c == '\'' || c == '"'):
			q.open = c
		case c == q.open:
			q.open = 0
		}
	}
}

// quoteState is the quote open (0 for none) after s, in a shell line, when
// open was open before it.
func quoteState(open byte, s string) byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && open != '\'':
			i++
		case open == 0 && (c == '\'' || c == '"'):
			open = c
		case c == open:
			open = 0
		}
	}
	return open
}
