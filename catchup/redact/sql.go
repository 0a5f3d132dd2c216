package redact

import (
	"regexp"
	"strings"
	"sync"
)

// This file masks the secrets that are not one word's: a password in a SQL
// statement given on the command line (psql -c, mysql -e), and a key =
// value pair written with blanks around its =.

// sqlValue is a SQL string literal as it may be written in an argv word or
// a line: in single quotes (a quote in it doubled), and so inside a
// single-quoted shell word, each of its quotes written as the shell's
// quote-escape-quote-quote; in double quotes, also escaped inside a
// double-quoted shell word (MySQL's).
const sqlValue = `('\\''(?:[^']|'\\'''\\'')*'\\''|'(?:[^']|'')*'|\\"[^"\\]*\\"|"(?:[^"\\]|\\.)*")`

// sqlPassword is what comes before a password in a SQL statement: ALTER or
// CREATE ROLE or USER ... PASSWORD (PostgreSQL), IDENTIFIED [WITH PLUGIN]
// BY, SET PASSWORD [FOR USER] = [PASSWORD(] (MySQL). ALTER or CREATE names
// a statement: grep password 'FILE' is none.
const sqlPassword = `(?i)(\b(?:(?:ALTER|CREATE)[ \t]+(?:ROLE|USER)\b[^;]*?[ \t]PASSWORD|` +
	`IDENTIFIED(?:[ \t]+WITH[ \t]+[^\s;]+)?[ \t]+BY|` +
	`SET[ \t]+PASSWORD(?:[ \t]+FOR[ \t]+[^\s=]+)?[ \t]*=(?:[ \t]*PASSWORD[ \t]*\()?)[ \t]*)`

var sqlRule = sync.OnceValue(func() rule {
	return rule{needs: anyOf("password", "identified"), re: lazy(sqlPassword + sqlValue), with: func(m []string) string {
		open, inner, closing := sqlQuotes(m[2])
		if inner == Mask || wholeReference().MatchString(inner) {
			return m[0] // '$PW' in a double-quoted line: the shell's variable
		}
		return m[1] + open + Mask + closing
	}}
})

// sqlQuotes is a SQL literal (sqlValue) as its opening quote, its text and
// its closing quote.
func sqlQuotes(v string) (open, inner, closing string) {
	for _, q := range []string{`'\''`, `\"`, `'`, `"`} {
		if len(v) >= 2*len(q) && strings.HasPrefix(v, q) && strings.HasSuffix(v, q) {
			return q, v[len(q) : len(v)-len(q)], q
		}
	}
	return "", v, ""
}

// spacedRule masks KEY = VALUE (or KEY =VALUE) when KEY ends as a secret's
// (password = X in a config line a job writes, --set password = X), at a
// word's start: "$password" = x, a shell test, is none. KEY= VALUE is not:
// in a line, VAR= cmd is an empty assignment before the command.
// SQL's SET PASSWORD = is sqlRule's.
var spacedRule = sync.OnceValue(func() rule {
	return rule{needs: and(all("="), anyOf(keyWords...)), re: lazy(`(?i)(^|[\s;&|("']|[^\s;&|("'\w-]SET[ \t]+)((?:SET[ \t]+)?[A-Za-z0-9_.-]*` + secretKey + `[ \t]+=[ \t]*)` +
		`(\\"[^"\\]*\\"|'[^']*'|"[^"]*"|[^\s'"&;\\]+)`), with: func(m []string) string {
		// SET before the key, at a word's start or after a sign (!SET), is
		// SQL's (sqlRule's): masked here, its value would read anew as a
		// SQL literal with the mask inside, and mask again (not idempotent).
		if strings.HasPrefix(strings.ToUpper(m[2]), "SET") || strings.Contains(strings.ToUpper(m[1]), "SET") ||
			strings.HasPrefix(strings.Trim(m[3], `'"\`), "%") {
			return m[0] // printf 'token = %s\n': a format, no value
		}
		return keep(m, m[3], m[1]+m[2]+sqlMasked(m[3]))
	}}
})

// sqlMasked is a value masked, its quotes kept (\"X\" too).
func sqlMasked(v string) string {
	if open, _, closing := sqlQuotes(v); open != "" {
		return open + Mask + closing
	}
	return Mask
}

// secretKeyWord is a word that is a secret's key (password, db_password,
// --api-key): in an argv, the value after its "=" word is a secret.
var secretKeyWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^[A-Za-z0-9_.-]*` + secretKey + `$`)
})

// spacedArgv masks, in out, the value of argv's spaced key = value pairs:
// password = X as three words, or db_password =X as two.
func spacedArgv(argv, out []string) {
	for i := 1; i < len(argv); i++ {
		if !strings.HasPrefix(argv[i], "=") || !secretKeyWord().MatchString(argv[i-1]) {
			continue
		}
		switch v := argv[i][1:]; {
		case v == "" && i+1 < len(argv) && !reference(argv[i+1]):
			out[i+1] = Mask
		case v != "" && !reference(v):
			out[i] = "=" + Mask
		}
	}
}

// tokenVar reports whether an assignment is a token's by an abbreviated
// name: its last _ part PAT (GITHUB_PAT=, a personal access token) when its
// value is a token's (no *, /: FILE_PAT=*.log is a pattern), or PW (DB_PW=).
func tokenVar(name, value string) bool {
	parts := strings.Split(strings.ToUpper(name), "_")
	switch last := parts[len(parts)-1]; {
	case len(parts) < 2:
		return false
	case last == "PW":
		return true
	case last == "PAT":
		return patValue().MatchString(strings.Trim(value, `'"`))
	}
	return false
}

var patValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })
