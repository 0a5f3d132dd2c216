package postgres

import (
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// scrub is a driver's error text without the ledger's password pw: each
// occurrence of it that stands as a word of its own (a password "u" is no
// part of "unreachable", nor of "user=") and is not inside one of the names
// the driver prints as they are (keep: the user's, the database's, the
// hosts', the ports') becomes xxxxx. Replaced everywhere, a password told
// itself by where it was missing: postgres:postgres said user=xxxxx, a
// password "ledger" turned "open ledger" into "open xxxxx".
func scrub(text, pw string, keep []string) string {
	if pw == "" || !strings.Contains(text, pw) {
		return text
	}
	kept := make([]bool, len(text))
	for _, k := range keep {
		for i := 0; k != "" && i < len(text); {
			j := strings.Index(text[i:], k)
			if j < 0 {
				break
			}
			for x := i + j; x < i+j+len(k); x++ {
				kept[x] = true
			}
			i += j + 1
		}
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		if end := i + len(pw); strings.HasPrefix(text[i:], pw) && standsAlone(text, i, end) && !allTrue(kept[i:end]) {
			b.WriteString("xxxxx")
			i = end
			continue
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String()
}

// standsAlone reports whether text[from:to] is no part of a longer word:
// a letter, digit or _ at its edge has none beside it.
func standsAlone(text string, from, to int) bool {
	return (from == 0 || !wordByte(text[from-1]) || !wordByte(text[from])) &&
		(to == len(text) || !wordByte(text[to]) || !wordByte(text[to-1]))
}

func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// printedNames are the names the driver's errors print as they are: the
// user's, the database's, each host's and port's.
func printedNames(c *pgconn.Config) []string {
	names := []string{c.User, c.Database, c.Host, strconv.Itoa(int(c.Port))}
	for _, f := range c.Fallbacks {
		names = append(names, f.Host, strconv.Itoa(int(f.Port)))
	}
	return names
}
