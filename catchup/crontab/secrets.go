package crontab

import (
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/catchup/catchup/catchup/redact"
)

// secretWords finds the secrets a crontab line can carry: a PostgreSQL URL
// (its password), PGPASSWORD=, and the URL of --ping or CATCHUP_PING_URL=
// (a credential).
// Compiled on first use: most commands never need it.
var secretWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(--ping[= ]+['"]?|CATCHUP_PING_URL=['"]?)([^\s'"]+)|(PGPASSWORD=['"]?)[^\s'"]+|postgres(?:ql)?://[^\s'"]+`)
})

// Redacted is a command as it may be stored or shown: the well-known shapes
// of a secret masked (redact.Command: a URL's password, password=, --password
// X, PGPASSWORD=, mysql -pX, Authorization: Bearer X), a PostgreSQL URL
// without its password (user info, password=, sslpassword=), a ping URL as
// its scheme and host only. What runs is always the line as written.
func Redacted(command string) string {
	command = redact.Command(redactWords(command))
	re := secretWords()
	return re.ReplaceAllStringFunc(command, func(m string) string {
		sub := re.FindStringSubmatch(m)
		if sub[3] != "" { // PGPASSWORD=, unless $VAR, $(...) or `...`: no secret
			if strings.ContainsAny(m[len(sub[3]):], "$`") {
				return m
			}
			return sub[3] + "(redacted)"
		}
		if sub[1] != "" { // a ping URL
			u, err := url.Parse(sub[2])
			if err != nil || u.Host == "" {
				return sub[1] + "(redacted)"
			}
			return sub[1] + u.Scheme + "://" + u.Host + "/..."
		}
		return pgURLMask(m)
	})
}

// pgURLMask is the PostgreSQL URL m without its password (user info,
// password=, sslpassword=), or its scheme alone when it does not parse.
func pgURLMask(m string) string {
	u, err := url.Parse(m)
	if err != nil {
		return m[:strings.Index(m, "://")+3] + "(redacted)"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		q.Del("password")
		q.Del("sslpassword")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
