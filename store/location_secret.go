package store

import "net/url"

// WithoutPassword is a ledger location as a job may see it: a PostgreSQL
// URL loses its password (in the user info, or a password= parameter)
// and its key's passphrase (sslpassword=); a
// SQLite path is unchanged. A location that does not parse (a URL with a
// typo, blanks around it) becomes "": its password could be anywhere in it.
func WithoutPassword(location string) string {
	if _, err := ParseLocation(location); err != nil {
		return ""
	}
	if !IsPostgres(location) {
		return location
	}
	u, err := url.Parse(location)
	if err != nil {
		return ""
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		q.Del("password")
		q.Del("sslpassword") // the passphrase of the client key
		u.RawQuery = q.Encode()
	}
	return u.String()
}
