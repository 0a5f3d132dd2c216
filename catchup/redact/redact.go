// Package redact hides the well-known shapes of a secret in a command
// before it is stored or shown: a URL's password, password=/token=-style
// key=value pairs (and *_PASSWORD=, *_TOKEN=, *_SECRET= assignments),
// --password X, mysql's glued -pX and an Authorization header's
// credentials. It is pure and idempotent; what runs is never redacted.
package redact

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Mask stands for a secret in what is stored or shown.
const Mask = "***"

// value is a secret value: quoted (its quotes kept), or a bare word that
// ends at a space, a quote, & or ;.
const value = `('[^']*'|"[^"]*"|[^\s'"&;]+)`

// secretKey ends the name of a key=value pair or a flag whose value is a
// secret.
const secretKey = `(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key)`

var rules = sync.OnceValue(func() []rule {
	return []rule{
		// scheme://user:PASSWORD@host
		{regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@'"]*):([^\s@/'"]+)@`), func(m []string) string {
			return m[1] + ":" + Mask + "@"
		}},
		// password=X, PGPASSWORD=X, --api-key=X, ?token=X&...
		{regexp.MustCompile(`(?i)([A-Za-z0-9_.-]*` + secretKey + `=)` + value), func(m []string) string {
			return m[1] + masked(m[2])
		}},
		// --password X
		{regexp.MustCompile(`(?i)(--` + secretKey + `\s+)('[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)`), func(m []string) string {
			return m[1] + masked(m[2])
		}},
		// Authorization: Bearer X
		{regexp.MustCompile(`(?i)(authorization:\s*(?:(?:bearer|basic|token|digest)\s+)?)([^\s'"]+)`), func(m []string) string {
			return m[1] + Mask
		}},
		// mysql -pX (only after mysql: -p means other things elsewhere)
		{regexp.MustCompile(`(?i)\b(?:mysql|mariadb|mysqldump|mysqladmin|mariadb-dump)\b[^;&|\n]*`), func(m []string) string {
			return mysqlGlued().ReplaceAllString(m[0], "${1}-p"+Mask)
		}},
	}
})

var mysqlGlued = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\s)-p[^\s'"]+`) })

type rule struct {
	re   *regexp.Regexp
	with func(sub []string) string
}

// masked is v with its secret masked, its quotes kept.
func masked(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[:1] + Mask + v[:1]
	}
	return Mask
}

// Command is command (a shell command line, or one word of an argv) with
// its secrets masked.
func Command(command string) string {
	for _, r := range rules() {
		if !r.re.MatchString(command) {
			continue
		}
		command = r.re.ReplaceAllStringFunc(command, func(m string) string {
			return r.with(r.re.FindStringSubmatch(m))
		})
	}
	return command
}

// Argv is argv with its secrets masked: each word as Command masks it, the
// word after a --password-style flag, and a glued -pX after mysql.
func Argv(argv []string) []string {
	out := make([]string, len(argv))
	mysql := false
	for i, a := range argv {
		switch {
		case i > 0 && secretFlag(argv[i-1]):
			out[i] = Mask
		case mysql && len(a) > 2 && strings.HasPrefix(a, "-p"):
			out[i] = "-p" + Mask
		default:
			out[i] = Command(a)
		}
		mysql = mysql || isMySQL(a)
	}
	return out
}

var secretFlagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^--` + secretKey + `$`) })

func secretFlag(word string) bool { return secretFlagRE().MatchString(word) }

func isMySQL(word string) bool {
	switch filepath.Base(word) {
	case "mysql", "mariadb", "mysqldump", "mysqladmin", "mariadb-dump":
		return true
	}
	return false
}
