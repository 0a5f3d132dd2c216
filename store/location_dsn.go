package store

import (
	"errors"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// errKeywordValue refuses a libpq keyword=value connection string. pgx
// would read one, but the rest of catchup (a job's CATCHUP_DB without the
// password, the ledger's name in messages, a crontab line's redaction)
// knows only the URL form: one spelling, redacted everywhere.
var errKeywordValue = errors.New("the ledger location is a libpq keyword=value string; write it as a URL: " +
	"postgres://USER@HOST:PORT/DATABASE (keep the password in CATCHUP_DB_FILE or PGPASSFILE; a file name with an =: write ./NAME)")

// isKeywordValue reports whether s starts like a libpq keyword=value
// string: a keyword (letters, digits, '_'), optional blanks, then '='.
// A file name that starts so is written ./NAME.
func isKeywordValue(s string) bool {
	i := 0
	for i < len(s) && (s[i] == '_' || 'a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z' || i > 0 && '0' <= s[i] && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return false
	}
	rest := strings.TrimLeft(s[i:], " \t\n\r\f\v")
	return strings.HasPrefix(rest, "=")
}

// badDSN is errBadDSN with what pgx found wrong in dsn: "sslmode is
// invalid", "invalid connect_timeout (...)", `invalid URL escape "%zz"`.
// pgx's own text quotes the URL (its password redacted at best), and the
// URL parser's quotes it whole: only the parts after it are kept, and a
// bad escape inside the user info (where the password is) is not quoted.
func badDSN(dsn string, err error) error {
	var pce *pgconn.ParseConfigError
	if !errors.As(err, &pce) {
		return errBadDSN
	}
	inner := pce.Unwrap()
	msg := pce.Error()
	if inner != nil {
		msg = strings.TrimSuffix(msg, " ("+inner.Error()+")")
	}
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		msg = msg[i+3:]
	} else {
		return errBadDSN
	}
	var ue *url.Error
	if errors.As(inner, &ue) {
		inner = ue.Err
		if inUserInfo(dsn, inner) {
			inner = errors.New("invalid URL escape or character in the user or password")
		}
	}
	switch {
	case inner == nil:
	case msg == "failed to configure TLS" || msg == "failed to parse as URL":
		msg = inner.Error() // the inner error says it better
	default:
		msg += " (" + inner.Error() + ")"
	}
	if pw := passwordOf(dsn); pw != "" && strings.Contains(msg, pw) {
		return errBadDSN
	}
	return errors.New("invalid PostgreSQL DSN: " + msg + "; want " + dsnForm)
}

// inUserInfo reports whether the URL parser's error is about a part of the
// user info ("USER:PASSWORD@"): it quotes that part, a piece of the password.
func inUserInfo(dsn string, err error) bool {
	var esc url.EscapeError
	var host url.InvalidHostError
	var part string
	switch {
	case errors.As(err, &esc):
		part = string(esc)
	case errors.As(err, &host):
		part = string(host)
	default:
		return strings.Contains(err.Error(), "userinfo")
	}
	rest := dsn[strings.Index(dsn, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	return at >= 0 && strings.Contains(rest[:at], part)
}

// passwordOf is dsn's password, in its user info or a password=
// parameter, when the URL parses that far; "" else.
func passwordOf(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		return pw
	}
	return u.Query().Get("password")
}
