// Package redact hides the well-known shapes of a secret in a command
// before it is stored or shown, alike in an argv and in a shell line: a
// URL's password (or a token as its user), scheme-less too; password=/
// token=-style key=value pairs and secret query parameters (?key=, ?sig=);
// a JSON string under a secret's key ("password":"X"); *_PASS=/*_SECRET=/
// *_TOKEN=-style assignments; --password X (any flag whose name ends so);
// an HTTP header's value when the header names a key, token, secret,
// Authorization or Cookie; and the options that are a password only for
// their program (mysql -pX, sshpass -p X, docker login -p X, openssl
// pass:X, zip -P X, smbclient -U user%X, ...: options.go), also for the
// program a wrapper runs (docker exec, kubectl exec, ssh: wrappers.go);
// a password in a SQL statement and password = X with blanks (sql.go).
// A value that is a shell reference ($VAR, ${VAR}, $(...), `...`) is
// never a secret: it is left whole. It is pure and idempotent; what runs
// is never redacted.
package redact

import (
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
// secret. PWD (the shell's directory) is none: pwd= is one only as a URL's
// query parameter.
// secret_key (s3cmd), sse-c-key (aws s3), a *-pass (rclone's --sftp-pass,
// pgbackrest's --repo1-cipher-pass) and a few glued ones (wp's --dbpass)
// too.
const secretKey = `(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|` +
	`sse-c(?:-copy-source)?-key|[_-]pass|(?:db|admin|root|user|bind|smtp|proxy|auth|store|key)pass)`

// queryKey is a URL query parameter (after ? or &) whose value is a
// secret though its name does not end as secretKey does.
const queryKey = `[?&](?:pwd|pass|key|sig|auth|[A-Za-z0-9_.-]*signature)`

// jsonKey is a JSON object's key whose string value is a secret.
const jsonKey = `[A-Za-z0-9_.-]*` + secretKey

// header is an HTTP header's name and colon (and its auth scheme) when its
// value is a secret: a hyphen-separated part of its name is key, token, secret, apikey,
// authorization or cookie.
const header = `((?i:` + headerName + `):[ \t]*(?i:(?:bearer|basic|token|digest)[ \t]+)?)`

// headerName is the name of a header whose value is a secret.
const headerName = `(?i:(?:[A-Za-z0-9]+-)*(?:key|token|secret|apikey|authorization|cookie)(?:-[A-Za-z0-9]+)*)`

// headerOption is what may come before a header in its word: curl's -H
// (at the end of a group of short options: -sH), or --header= (wget's;
// --proxy-header=).
const headerOption = `-[A-Za-z]*H|--[A-Za-z-]*header=|`

var rules = sync.OnceValue(func() []rule {
	return []rule{
		// scheme://user:PASSWORD@host (or //user:PASSWORD@host), up to
		// the last @ before the path (a raw @ in the password), the
		// password quoted in whole or in part ('PW', P"W", no blank
		// inside: never from one quoted word to the next): those quotes
		// pair up, and go with it; a quote that opens or closes the
		// word's quoting (P'W inside "...", a '\'' in '...') is kept after
		// the mask, so that the line keeps its quoting
		{needs: all("@", "//", ":"), re: lazy(urlStart + `([^\s:/@'"]*):((?:[^\s/'"]|'[^\s']*'|"[^\s"]*"|['"])+)@`), quoted: func(m []string, before quoteScan) string {
			return keep(m, m[3], m[1]+m[2]+":"+Mask+quoting(before, m[1]+m[2]+":", m[3])+"@")
		}},
		// scheme://TOKEN@host (or //TOKEN@host)
		{needs: all("@", "//"), re: lazy(urlStart + `([A-Za-z0-9_-]+)@`), with: func(m []string) string {
			if !tokenUser(m[2]) {
				return m[0]
			}
			return m[1] + Mask + "@"
		}},
		// A webhook whose path is its secret (Slack, Discord): an alert's
		// URL in --notify-cmd.
		// The whole path is masked, a $ in it or not; only a path that is
		// one variable reference, no secret itself, is left whole.
		{needs: anyOf("slack", "discord"), re: lazy(`(?i)((?:https?://)?(?:hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)|` +
			`(?:ptb\.|canary\.)?discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks)/)([^\s'"\\;|&<>()]+)`), with: func(m []string) string {
			if wholeReference().MatchString(m[2]) {
				return m[0]
			}
			return m[1] + Mask
		}},
		// password=X, PGPASSWORD=X, --api-key=X, ?token=X&..., and the
		// query parameters that are a secret only in a URL: ?key=X,
		// &sig=X, &X-Amz-Signature=X, ?auth=X, ?pass=X, ?pwd=X
		{needs: and(all("="), anyOf(queryWords...)), re: lazy(`(?i)((?:[A-Za-z0-9_.-]*` + secretKey + `|` + queryKey + `)=)` + value), with: func(m []string) string {
			if !secretValue(strings.TrimSuffix(m[1], "="), m[2]) {
				return m[0]
			}
			return keep(m, m[2], m[1]+masked(m[2]))
		}},
		// {"password":"X"}, "client_secret": "X", "apiKey":"X": a JSON
		// string under a secret's key, also with its quotes escaped
		// inside a double-quoted word ({\"token\":\"X\"})
		{needs: and(all(`"`, ":"), anyOf(keyWords...)), re: lazy(`(?i)("` + jsonKey + `"\s*:\s*")((?:[^"\\]|\\.)*)"`), with: func(m []string) string {
			return keep(m, m[2], m[1]+Mask+`"`)
		}},
		{needs: and(all(`\"`, ":"), anyOf(keyWords...)), re: lazy(`(?i)(\\"` + jsonKey + `\\"\s*:\s*\\")([^"\\]*)\\"`), with: func(m []string) string {
			return keep(m, m[2], m[1]+Mask+`\"`)
		}},
		// DB_PASS=X, SECRET_KEY=X: an assignment whose name has such a part
		{needs: all("="), re: lazy(`(^|[\s;&|("'])([A-Za-z_][A-Za-z0-9_]*=)` + value), with: func(m []string) string {
			if name := strings.TrimSuffix(m[2], "="); !secretVar(name) && !tokenVar(name, m[3]) {
				return m[0]
			}
			return keep(m, m[3], m[1]+m[2]+masked(m[3]))
		}},
		// --password X, --db-password X, --client-secret X
		{needs: and(all("--"), anyOf(keyWords...)), re: lazy(`(?i)(--[A-Za-z0-9_-]*` + secretKey + `[ \t]+)('[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)`), with: func(m []string) string {
			if !secretValue(strings.TrimRight(m[1], " \t"), m[2]) {
				return m[0]
			}
			return keep(m, m[2], m[1]+masked(m[2]))
		}},
		// 'X-Api-Key: X', "Authorization: Bearer X", Cookie: X
		{needs: and(all("'", ":"), anyOf(headerWords...)), re: lazy(`'` + header + `([^']*)'`), with: func(m []string) string {
			return keep(m, m[2], "'"+m[1]+Mask+"'")
		}},
		{needs: and(all(`"`, ":"), anyOf(headerWords...)), re: lazy(`"` + header + `([^"]*)"`), with: func(m []string) string {
			return keep(m, m[2], `"`+m[1]+Mask+`"`)
		}},
		// X-Api-Key:X unquoted, a word of its own or after -H (-sH) or
		// --header=, as an argv's header word is
		{needs: and(all(":"), anyOf(headerWords...)), re: lazy(`(^|[\s;&|(])(` + headerOption + `)(` + headerName + `:)` + value), with: func(m []string) string {
			return keep(m, m[4], m[1]+m[2]+m[3]+masked(m[4]))
		}},
	}
})

// wholeReference is a value that is one shell variable reference.
var wholeReference = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$`)
})

// rule masks what re matches as with has it, or as quoted has it, which
// is also told the line's text before the match. needs is what a text
// holds wherever re matches it (clues.go): a text without it is not
// searched, and re is compiled the first time one is. A rule without needs
// searches every text.
type rule struct {
	needs  need
	re     func() *regexp.Regexp
	with   func(sub []string) string
	quoted func(sub []string, before quoteScan) string // before: the line's quoting at the match
}

// apply is line with each of r's matches replaced.
func (r rule) apply(line string) string {
	var b strings.Builder
	last := 0
	var before quoteScan // the line's quoting, read up to scanned
	scanned := 0
	for _, loc := range r.re().FindAllStringSubmatchIndex(line, -1) {
		sub := make([]string, len(loc)/2)
		for i := range sub {
			if loc[2*i] >= 0 {
				sub[i] = line[loc[2*i]:loc[2*i+1]]
			}
		}
		b.WriteString(line[last:loc[0]])
		if r.quoted != nil {
			before.feed(line[scanned:loc[0]])
			scanned = loc[0]
			b.WriteString(r.quoted(sub, before))
		} else {
			b.WriteString(r.with(sub))
		}
		last = loc[1]
	}
	return b.String() + line[last:]
}

// keep is m[0] when v is a shell reference or already masked, else with.
func keep(m []string, v, with string) string {
	if reference(v) || v == Mask || v == "'"+Mask+"'" || v == `"`+Mask+`"` {
		return m[0]
	}
	return with
}

// reference reports whether v is (or holds) a shell reference: a variable
// or a command substitution, never the secret itself. A single-quoted
// value is literal.
func reference(v string) bool {
	return !strings.HasPrefix(v, "'") && strings.ContainsAny(v, "$`")
}

// masked is v with its secret masked, its quotes kept.
func masked(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[:1] + Mask + v[:1]
	}
	return Mask
}

// secretVar reports whether an assignment's name has a part (between _)
// PASS, PASSWORD, PASSWD, PASSPHRASE, SECRET, TOKEN or APIKEY, or API_KEY or
// PRIVATE_KEY, or is a program's password variable (MYSQL_PWD, SSHPASS,
// REDISCLI_AUTH); a name ending in _FILE, _PATH or _DIR names where a secret
// is, not the secret.
func secretVar(name string) bool {
	switch strings.ToUpper(name) {
	case "MYSQL_PWD", "SSHPASS", "REDISCLI_AUTH": // MYSQL_PWD's _PWD alone: START_PWD=/srv/app is a directory
		return true
	}
	parts := strings.Split(strings.ToUpper(name), "_")
	switch parts[len(parts)-1] {
	case "FILE", "PATH", "DIR":
		return false
	}
	for i, p := range parts {
		switch p {
		case "PASS", "PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN", "APIKEY":
			return true
		case "KEY":
			if i > 0 && (parts[i-1] == "API" || parts[i-1] == "PRIVATE") {
				return true
			}
		}
	}
	return false
}

// Command is command (a shell command line, or one word of an argv) with
// its secrets masked.
func Command(command string) string { return maskCommand(command, false) }

// maskCommand is Command; every says to search command with each rule,
// what it holds or not (the tests' check that a rule's needs are right).
func maskCommand(command string, every bool) string {
	c := cluesOf(command)
	for _, r := range append(rules(), sqlRule(), spacedRule(), dashRule(), tokenRule()) { // sql.go, flags.go, tokens.go
		if !every && r.needs != nil && !r.needs(c) || !r.re().MatchString(command) {
			continue
		}
		command = r.apply(command)
		c = cluesOf(command)
	}
	return programs(command)
}

// Argv is argv with its secrets masked: each word as Command masks it, the
// word after a --password-style flag, a header word's value, and what is
// a secret as an option of its program (mysql -pX, sshpass -p X, a sh -c
// line).
func Argv(argv []string) []string { return maskArgv(argv, false) }

// maskArgv is Argv; every is maskCommand's.
func maskArgv(argv []string, every bool) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		var h []string
		if every || headerNeeds(cluesOf(a)) {
			h = headerWord().FindStringSubmatch(a)
		}
		switch {
		case i > 0 && (every || keyNeeds(cluesOf(argv[i-1]))) && secretFlag(argv[i-1], a):
			out[i] = Mask
		case h != nil && !reference(h[3]):
			out[i] = h[1] + Mask
		case every || urlNeeds(cluesOf(a)):
			out[i] = maskCommand(argvURL(a), every)
		default:
			out[i] = maskCommand(a, every)
		}
	}
	spacedArgv(argv, out) // password = X (sql.go)
	for i, w := range byProgram(argv, false) {
		if w != argv[i] {
			out[i] = w
		}
	}
	return out
}

var headerWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^((?:` + headerOption + `)` + header + `)(.+)$`) })

// maskedStandIn stands for a masked secret when Masked asks whether a
// command would mask it again: a bare word that every rule takes for a
// secret (a URL's user too: a token's prefix).
const maskedStandIn = "ghp_standin"

// Masked reports whether command, as Command left it, holds a secret's
// place masked: running it would not run what was written. A Mask in no
// secret's place (echo '***') is no masked secret.
func Masked(command string) bool {
	if maskedToken(command) { // ghp_***: tokens.go
		return true
	}
	probe := strings.ReplaceAll(command, Mask, maskedStandIn)
	return probe != command && Command(probe) != probe
}
