package crontab

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// redactWords masks, word by word as the shell splits them, the values of
// --ping (its next word, or after --ping=), of CATCHUP_PING_URL= and of
// PGPASSWORD=, and the password of a PostgreSQL URL (--db, CATCHUP_DB=): whatever blanks (a tab) or quoting (a quoted "--ping", a
// URL quoted in part, 'PGPASSWORD=a b') a line uses, which the patterns of
// Redacted, reading the text, do not all see. A masked value keeps the
// quotes around it when it had one pair around it all; a word quoted
// otherwise is written anew, unquoted. A $VAR, $(...) or `...` value of
// PGPASSWORD= is no secret, and is kept.
func redactWords(command string) string {
	var b strings.Builder
	last, pingNext := 0, false
	lx := &lexer{s: command}
	for lx.i < len(command) {
		for lx.i < len(command) && strings.IndexByte(" \t\n", command[lx.i]) >= 0 {
			lx.i++
		}
		start := lx.i
		w, ok, err := lx.next()
		if err != nil || !ok {
			if err != nil || lx.i >= len(command) || strings.IndexByte(operators, command[lx.i]) < 0 {
				break // the end, a comment, or a quote left open
			}
			lx.i, lx.done, pingNext = lx.i+1, false, false // past ; & | < > ( )
			continue
		}
		raw := command[start:lx.i]
		masked := ""
		switch {
		case pingNext:
			masked = maskedValue(raw, w, pingMask(w))
		case strings.HasPrefix(w, "--ping="):
			masked = maskedAssignment(raw, w, "--ping=", pingMask)
		case strings.HasPrefix(w, "CATCHUP_PING_URL="):
			masked = maskedAssignment(raw, w, "CATCHUP_PING_URL=", pingMask)
		case strings.HasPrefix(w, "PGPASSWORD="):
			masked = maskedAssignment(raw, w, "PGPASSWORD=", passwordMask)
		default:
			masked = maskedPostgresURL(raw, w)
		}
		pingNext = w == "--ping"
		if masked != "" && masked != raw {
			b.WriteString(command[last:start])
			b.WriteString(masked)
			last = lx.i
		}
	}
	b.WriteString(command[last:])
	return b.String()
}

// maskedAssignment is the word raw (w as the shell reads it), NAME=VALUE,
// with VALUE masked by mask; "" to keep it.
func maskedAssignment(raw, w, name string, mask func(string) string) string {
	v := strings.TrimPrefix(w, name)
	m := mask(v)
	if m == "" || m == v {
		return ""
	}
	if rest, ok := strings.CutPrefix(raw, name); ok {
		return name + maskedValue(rest, v, m)
	}
	return name + m
}

// maskedValue is m in place of the word raw, which reads v: in the quotes
// raw had around it all, if any; "" when m is "" (keep it).
func maskedValue(raw, v, m string) string {
	if m == "" || m == v {
		return ""
	}
	if n := len(raw); n >= 2 && (raw[0] == '\'' || raw[0] == '"') && raw[n-1] == raw[0] && raw[1:n-1] == v {
		return raw[:1] + m + raw[:1]
	}
	return m
}

// pingMask is a ping URL as it may be stored: its scheme and host.
func pingMask(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return "(redacted)"
	}
	return u.Scheme + "://" + u.Host + "/..."
}

// passwordMask is PGPASSWORD's value as it may be stored: none, unless it
// is the shell's to expand.
func passwordMask(v string) string {
	if v == "" || strings.ContainsAny(v, "$`") {
		return ""
	}
	return "(redacted)"
}

// maskedPostgresURL is the word raw (w as the shell reads it) with the
// password of the PostgreSQL URL in it masked, when the shell's quoting
// cuts that URL in raw (postgres://u:"PW"@db, 'postgres://u:'PW'@db),
// where Redacted's pattern, reading the text, stops at the first quote;
// "" to leave it to that pattern.
func maskedPostgresURL(raw, w string) string {
	loc := pgURL().FindStringIndex(w)
	if loc == nil || strings.Contains(raw, w[loc[0]:loc[1]]) {
		return ""
	}
	return maskedValue(raw, w, w[:loc[0]]+pgURLMask(w[loc[0]:loc[1]])+w[loc[1]:])
}

// pgURL is a PostgreSQL URL in a word as the shell reads it; compiled on
// first use, as secretWords.
var pgURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)postgres(?:ql)?://[^\s'"]+`)
})
