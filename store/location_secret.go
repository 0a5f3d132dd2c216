package store

import "strings"

// WithoutPassword is a ledger location as a job may see it: a PostgreSQL
// URL loses its password (in the user info, or a password= parameter)
// and its key's passphrase (sslpassword=); a
// SQLite path is unchanged. A location that does not parse (a URL with a
// typo, blanks around it) becomes "": its password could be anywhere in it.
//
// The URL is cut as the driver reads it (libpq's rules), not as net/url
// does: the user info ends at the first @ before any /, so a # or ? in the
// password is the password's ("postgres://u:1234#pw@db/x"), where net/url
// saw a port and a fragment and kept the password whole; and a parameter
// runs to the next &, a # in it included.
func WithoutPassword(location string) string {
	l, err := ParseLocation(location)
	if err != nil {
		return ""
	}
	if l.Kind != Postgres {
		return location
	}
	head, rest, _ := strings.Cut(l.DSN, "://") // its scheme in lower case, as libpq wants it
	if i := strings.IndexAny(rest, "@/"); i >= 0 && rest[i] == '@' {
		user, _, _ := strings.Cut(rest[:i], ":")
		rest = rest[i+1:]
		if user != "" {
			rest = user + "@" + rest
		}
	}
	q := queryStart(rest)
	if q < 0 {
		return head + "://" + rest
	}
	var kept []string
	for _, pair := range strings.Split(rest[q+1:], "&") {
		key, _, _ := strings.Cut(pair, "=")
		if k := lenientUnescape(key); k != "password" && k != "sslpassword" { // sslpassword: the client key's passphrase
			kept = append(kept, pair)
		}
	}
	out := head + "://" + rest[:q]
	if len(kept) > 0 {
		out += "?" + strings.Join(kept, "&")
	}
	return out
}

// queryStart is the index of the ? that starts a PostgreSQL URL's
// parameters in rest (what follows the user info), or -1. It walks the
// hosts as the driver does (HOST[:PORT], or [IPv6][:PORT], separated by
// commas), since a bracketed address may hold a ?; from there on the
// first ? ends the database name.
func queryStart(rest string) int {
	i := 0
	for {
		if strings.HasPrefix(rest[i:], "[") {
			end := strings.IndexByte(rest[i:], ']')
			if end < 0 {
				return -1
			}
			i += end + 1
		} else if n := strings.IndexAny(rest[i:], ":/?,"); n >= 0 {
			i += n
		} else {
			return -1
		}
		if strings.HasPrefix(rest[i:], ":") {
			n := strings.IndexAny(rest[i+1:], "/?,")
			if n < 0 {
				return -1
			}
			i += 1 + n
		}
		if !strings.HasPrefix(rest[i:], ",") {
			break
		}
		i++
	}
	if n := strings.IndexByte(rest[i:], '?'); n >= 0 {
		return i + n
	}
	return -1
}

// lenientUnescape is a parameter's key as the driver reads it: blanks
// around it trimmed, each valid %XX decoded ("pass%77ord" is password).
func lenientUnescape(s string) string {
	s = strings.Trim(s, " ")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if hi, lo := unhex(s[i+1]), unhex(s[i+2]); hi >= 0 && lo >= 0 {
				b.WriteByte(byte(hi<<4 | lo))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
