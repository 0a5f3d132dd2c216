package redact

import (
	"regexp"
	"strings"
	"sync"
)

// This file tells a flag whose value is a secret: --password X, any long
// flag whose name ends as secretKey does, and a single-dash one whose name
// ends in password, passwd or passphrase (influx -password X) or is
// keytool's -storepass, -keypass (-srcstorepass, -destkeypass...).

var secretFlagRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(?:--[A-Za-z0-9_-]*` + secretKey + `|` + dashFlag + `)$`)
})

// dashFlag is a single-dash flag whose value is a secret.
const dashFlag = `-[A-Za-z]*(?:password|passwd|passphrase|storepass|keypass)`

// countPass is a flag that names a pass of an encoder, no password:
// --two-pass, --single-pass.
var countPass = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[_-])(?:one|two|single|multi|first|second|double|final)[_-]pass$`)
})

// secretFlag reports whether argv word flag is a flag whose next word,
// value, is a secret (secretValue).
func secretFlag(flag, value string) bool {
	return secretFlagRE().MatchString(flag) && secretValue(flag, value)
}

// secretValue reports whether value, given to flag (a flag whose name ends
// as a secret's, or a key=value pair's key), is a secret: flag is no --no-*
// switch nor an encoder's --two-pass, and value is no file's name (aws's
// fileb://, file://) nor, after a single-dash flag, openssl's pass phrase
// argument (pass:X is masked for openssl alone; env:VAR, file:PATH, fd:N,
// stdin hold none).
func secretValue(flag, value string) bool {
	lower := strings.ToLower(flag)
	v := strings.ToLower(strings.Trim(value, `'"`))
	switch {
	case strings.HasPrefix(v, "file://") || strings.HasPrefix(v, "fileb://"):
		return false
	case strings.HasPrefix(lower, "--no-") || countPass().MatchString(lower):
		return false
	case !strings.HasPrefix(lower, "--") && strings.HasPrefix(lower, "-"):
		for _, p := range []string{"pass:", "env:", "file:", "fd:", "stdin"} {
			if strings.HasPrefix(v, p) {
				return false
			}
		}
	}
	return true
}

// dashRule masks the value of a single-dash secret flag in a line
// (influx -password X, keytool -storepass X), as Argv does after its word.
var dashRule = sync.OnceValue(func() rule {
	return rule{needs: and(all("-"), anyOf("pass")), re: lazy(`(?i)(^|[\s;&|(])(` + dashFlag + `)([ \t]+)('[^']*'|"[^"]*"|[^\s'"-][^\s'"]*)`), with: func(m []string) string {
		if !secretValue(m[2], m[4]) {
			return m[0]
		}
		return keep(m, m[4], m[1]+m[2]+m[3]+masked(m[4]))
	}}
})
