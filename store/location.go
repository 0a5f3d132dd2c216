package store

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Kind is the backend a ledger lives in.
type Kind string

const (
	SQLite   Kind = "sqlite"   // a file on this host
	Postgres Kind = "postgres" // a PostgreSQL database, shared by a fleet
)

// Location is where a ledger is: --db, CATCHUP_DB or the default file.
// ParseLocation makes one from what the user wrote; store/ledger opens it.
type Location struct {
	Kind Kind
	Path string // SQLite: the ledger file
	// DSN is the PostgreSQL connection URL. It may carry a password: print
	// Redacted(), never DSN.
	DSN string
}

// errBadDSN is returned for a PostgreSQL URL that does not parse (badDSN
// adds what is wrong). It does not quote the URL: a malformed one could
// hide its password from any redaction.
var errBadDSN = errors.New("invalid PostgreSQL DSN; want " + dsnForm)

const dsnForm = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?PARAM=VALUE&...]"

// schemeOf returns the scheme that s starts with, as a URL's ("postgres"
// in "postgres://u@h/db") or a typo's ("pg" in "pg:x"): a letter, then
// letters, digits, '+', '-' or '.', up to the first ':'. It returns "" when
// s does not start so. A value with a scheme but no "//" is refused by
// ParseLocation: taken as a file name it would put a fleet's ledger in a
// local file named after the typo; a file name with a colon is written ./NAME.
func schemeOf(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i]
		default:
			return ""
		}
	}
	return ""
}

// urlScheme returns the scheme of s when s is written as a URL
// (SCHEME://...), else "".
func urlScheme(s string) string {
	if sc := schemeOf(s); sc != "" && strings.HasPrefix(s[len(sc):], "://") {
		return sc
	}
	return ""
}

// ParseLocation reads a ledger location: a postgres:// or postgresql://
// URL names a PostgreSQL ledger; a file: URL or any other value that is not
// a URL names a SQLite file. A URL of another scheme is an error, as is a
// PostgreSQL URL that does not parse and a libpq keyword=value string
// ("host=db password=..."), which would otherwise name a local file called
// after its password. Errors never quote the value: it may hold a password.
func ParseLocation(s string) (Location, error) {
	if s == "" {
		return Location{}, errors.New("empty ledger location")
	}
	if strings.TrimSpace(s) != s {
		// " postgres://u:pw@h/db" would name a local file: a ledger apart
		// from the fleet's, its path (the password in it) in the job's
		// CATCHUP_DB and in messages.
		return Location{}, errors.New("the ledger location has leading or trailing blanks; remove them")
	}
	if len(s) >= 5 && strings.EqualFold(s[:5], "file:") {
		return parseFileURL(s)
	}
	scheme := urlScheme(s)
	switch {
	case scheme == "":
		if p := schemeOf(s); p != "" {
			if isPostgresScheme(p) {
				return Location{}, errBadDSN
			}
			return Location{}, fmt.Errorf("unknown ledger scheme %q: want a file path, file:PATH or postgres://USER@HOST/DATABASE (a file name with a colon: write ./NAME)",
				strings.ToLower(p))
		}
		if isKeywordValue(s) {
			return Location{}, errKeywordValue
		}
		if head, _, ok := strings.Cut(s, "//"); ok && isPostgresScheme(head) {
			// "postgres//u:pw@h/db", the URL's colon left out, would name
			// a local file: a ledger apart from the fleet's, the password
			// in its path, in the job's CATCHUP_DB and in messages.
			return Location{}, errBadDSN
		}
		if credentialsLike(s) {
			// "postgres;//u:pw@h/db", "pg//u:pw@h/db": the same, for any
			// mistyped scheme.
			return Location{}, errors.New("the ledger location holds USER:PASSWORD@HOST, as a URL does, but is no postgres:// URL; " +
				"fix the URL (a file of such a name: write file:PATH)")
		}
		return Location{Kind: SQLite, Path: s}, nil
	case !isPostgresScheme(scheme):
		return Location{}, fmt.Errorf("unknown ledger scheme %q: want a file path, file:PATH or postgres://USER@HOST/DATABASE",
			strings.ToLower(scheme))
	}
	// A scheme is case-insensitive; the driver knows it in lower case.
	dsn := strings.ToLower(scheme) + s[len(scheme):]
	if rawAtInUserInfo(dsn) {
		// The driver ends the user info at the first @: the rest of the
		// password would be the host, in every message and ls header.
		return Location{}, fmt.Errorf("%w: its user info holds an @ (percent-encode it as %%40)", errBadDSN)
	}
	cfg, err := parseNaming(dsn)
	if err != nil {
		return Location{}, badDSN(dsn, err)
	}
	if strings.Contains(cfg.ConnConfig.Database, "@") {
		// "postgres:///u:pw@h/db", a slash too many: the socket's
		// database "u:pw@h/db", the password in every message.
		return Location{}, fmt.Errorf("%w: a database name with an @ (a slash too many after postgres:?)", errBadDSN)
	}
	return Location{Kind: Postgres, DSN: dsn}, nil
}

// rawAtInUserInfo reports whether a postgres:// URL's password holds an @
// not percent-encoded, as the driver reads the URL (libpq's rules): the
// user info ends at the first @ before any /, a ? or # in it included
// ("u:p?w@rd@h": password "p?w"), so such an @ leaves one in the hosts,
// which end at the first / or ?.
func rawAtInUserInfo(dsn string) bool {
	rest := dsn[strings.Index(dsn, "://")+3:]
	i := strings.IndexAny(rest, "@/")
	if i < 0 || rest[i] != '@' {
		return false
	}
	hosts := rest[i+1:]
	if j := strings.IndexAny(hosts, "/?"); j >= 0 {
		hosts = hosts[:j]
	}
	return strings.Contains(hosts, "@")
}

// credentialsLike reports whether a path has a component shaped as a
// URL's USER:PASSWORD@HOST (a ':' before an '@'): the text of a mistyped
// URL, never to become a file (or a lock directory) named after it.
func credentialsLike(path string) bool {
	for _, part := range strings.Split(path, "/") {
		if colon := strings.IndexByte(part, ':'); colon >= 0 && strings.IndexByte(part[colon:], '@') > 0 {
			return true
		}
	}
	return false
}

func isPostgresScheme(scheme string) bool {
	return strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql")
}

// parseFileURL reads file:PATH, file:/PATH and file:///PATH (the host may
// only be localhost). It takes no query: catchup sets SQLite's options
// itself.
func parseFileURL(s string) (Location, error) {
	bad := errors.New("invalid file: ledger location; want file:PATH or file:///PATH")
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, bad
	}
	path := u.Path
	if u.Opaque != "" {
		if path, err = url.PathUnescape(u.Opaque); err != nil {
			return Location{}, bad
		}
	}
	switch {
	case u.Host != "" && u.Host != "localhost":
		return Location{}, fmt.Errorf("a file: ledger location names a file on this host, not on %s", u.Hostname())
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return Location{}, errors.New("a file: ledger location takes no ?query or #fragment (catchup sets the SQLite options)")
	case path == "" || u.User != nil:
		return Location{}, bad
	}
	return Location{Kind: SQLite, Path: path}, nil
}

// Redacted names the ledger fit to print: a SQLite file as its path; a
// PostgreSQL ledger as HOST:PORT/DATABASE, with ?search_path=SCHEMA when
// the URL picks a schema, and never with user, password or other
// parameters. Two URLs that reach the same ledger (another user, a rotated
// password, parameters in another order) give the same name, so it also
// serves as the ledger's identity.
func (l Location) Redacted() string {
	if l.Kind != Postgres {
		return l.Path
	}
	cfg, err := parseNaming(l.DSN)
	if err != nil {
		return "(invalid PostgreSQL DSN)"
	}
	c := cfg.ConnConfig
	return pgName(c.Host, c.Port, c.Database, c.RuntimeParams)
}

// pgName is HOST:PORT/DATABASE, with ?search_path=SCHEMA when params pick one.
func pgName(host string, port uint16, database string, params map[string]string) string {
	name := host + ":" + strconv.Itoa(int(port)) + "/" + database
	if schema := searchPath(params); schema != "" {
		name += "?search_path=" + schema
	}
	return name
}

// String is Redacted: printing a Location never shows its password.
func (l Location) String() string { return l.Redacted() }

// SearchPath is the search_path a PostgreSQL connection's parameters
// (pgconn's RuntimeParams) set, "" for the server's default.
func SearchPath(params map[string]string) string { return searchPath(params) }

// searchPath is the schema a connection's parameters choose, as the
// search_path parameter or in options (-csearch_path=S, -c search_path=S or
// --search_path=S; the last one wins, as on the server).
func searchPath(params map[string]string) string {
	schema := params["search_path"]
	opts := strings.Fields(params["options"])
	for i, o := range opts {
		if o == "-c" && i+1 < len(opts) {
			o = "-c" + opts[i+1]
		}
		for _, prefix := range []string{"-csearch_path=", "--search_path="} {
			if v, ok := strings.CutPrefix(o, prefix); ok {
				schema = v
			}
		}
	}
	return schema
}

// IsPostgres reports whether location is written as a PostgreSQL URL.
//
// Deprecated: parse the location once with ParseLocation and read its Kind.
func IsPostgres(location string) bool {
	return isPostgresScheme(urlScheme(location))
}

// SafeLocation is the Redacted name of location.
//
// Deprecated: parse the location once with ParseLocation and print its
// Redacted name.
func SafeLocation(location string) string {
	l, err := ParseLocation(location)
	if err != nil {
		switch {
		case IsPostgres(location):
			return "(invalid PostgreSQL DSN)"
		case errors.Is(err, errKeywordValue):
			return "(a libpq keyword=value string, not a postgres:// URL)"
		}
		return "(invalid ledger location)"
	}
	return l.Redacted()
}
