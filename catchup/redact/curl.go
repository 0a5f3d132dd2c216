package redact

import (
	"path/filepath"
	"strings"
	"sync"
)

// This file masks curl's secrets: what follows the first colon of the
// value of -u/--user and -U/--proxy-user (USER:PASSWORD) and of -E/--cert
// and --proxy-cert (FILE:PASSWORD), and the whole value of
// --oauth2-bearer, --pass and --proxy-pass. They are curl's from any word
// of a simple command that names curl (its program, or a word further on:
// docker run curlimages/curl curl, ssh host curl, xargs curl, echo curl)
// and inside a quoted word of it (ssh host 'curl ...'). curl's options
// are parsed as curl parses them: a group of short options left to right,
// the first that takes a value taking the rest of the group or, if
// nothing is left, the next word; a long option that takes a value takes
// the next word; -- ends the options.

// curlShortValued are curl's short options that take a value
// (curl --help all, 7.88).
const curlShortValued = "AbcCdDeEFhHKmoPQrtTuUwxXyYz"

// curlLongValued are curl's long options that take a value (curl --help
// all, 7.88): the word after one is its value, never an option.
var curlLongValued = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, o := range strings.Fields(`abstract-unix-socket alt-svc aws-sigv4 cacert capath
		cert cert-type ciphers config connect-timeout connect-to continue-at cookie cookie-jar
		create-file-mode crlfile curves data data-ascii data-binary data-raw data-urlencode
		delegation dns-interface dns-ipv4-addr dns-ipv6-addr dns-servers doh-url dump-header
		egd-file engine etag-compare etag-save expect100-timeout form form-string ftp-account
		ftp-alternative-to-user ftp-method ftp-port ftp-ssl-ccc-mode happy-eyeballs-timeout-ms
		header help hostpubmd5 hostpubsha256 hsts interface json keepalive-time key key-type
		krb libcurl limit-rate local-port login-options mail-auth mail-from mail-rcpt
		max-filesize max-redirs max-time netrc-file noproxy oauth2-bearer output output-dir
		parallel-max pass pinnedpubkey preproxy proto proto-default proto-redir proxy
		proxy-cacert proxy-capath proxy-cert proxy-cert-type proxy-ciphers proxy-crlfile
		proxy-header proxy-key proxy-key-type proxy-pass proxy-pinnedpubkey proxy-service-name
		proxy-tls13-ciphers proxy-tlsauthtype proxy-tlspassword proxy-tlsuser proxy-user
		proxy1.0 pubkey quote random-file range rate referer request request-target resolve
		retry retry-delay retry-max-time sasl-authzid service-name socks4 socks4a socks5
		socks5-gssapi-service socks5-hostname speed-limit speed-time stderr telnet-option
		tftp-blksize time-cond tls-max tls13-ciphers tlsauthtype tlspassword tlsuser trace
		trace-ascii unix-socket upload-file url url-query user user-agent variable write-out`) {
		m[o] = true
	}
	return m
})

// curlSecret is how the value of curl's option name (a short option's
// letter, or a long option's name) is masked, or nil when it holds no
// secret.
func curlSecret(name string) func(string) string {
	switch name {
	case "u", "U", "user", "proxy-user":
		return userPassword
	case "E", "cert", "proxy-cert":
		return certPassword
	case "oauth2-bearer", "pass", "proxy-pass":
		return wholeValue
	}
	return nil
}

// curlWord reports whether w names curl: its base name is curl or
// curl.exe, or a container image's (curlimages/curl:8.5.0). A URL is no
// program (https://example.com/curl).
func curlWord(w string) bool {
	w = unquote(w)
	if strings.Contains(w, "://") {
		return false
	}
	b := filepath.Base(w)
	if strings.Contains(w, "/") {
		if i := strings.IndexAny(b, ":@"); i > 0 {
			b = b[:i]
		}
	}
	return b == "curl" || b == "curl.exe"
}

// curlWords is out (words with some already masked) with curl's secrets
// masked: from the first word that names curl, and inside the quoted
// words of a command line (quoted is true) that hold one.
func curlWords(words, out []string, quoted bool) {
	for k := range words {
		if curlWord(words[k]) {
			curlOptions(words[k+1:], out[k+1:])
			break
		}
	}
	if !quoted {
		return
	}
	for k, w := range out {
		if len(w) > 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] && strings.Contains(w, "curl") {
			out[k] = w[:1] + curlLine(w[1:len(w)-1]) + w[:1]
		}
	}
}

// curlLine is a command line with curl's secrets masked.
func curlLine(line string) string {
	return rewrite(line, func(words []string) []string {
		out := append([]string(nil), words...)
		curlWords(words, out, true)
		return out
	})
}

// curlOptions masks, in out, the secrets among words, curl's arguments.
func curlOptions(words, out []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return
		case strings.HasPrefix(w, "--"):
			name, v, glued := strings.Cut(w[2:], "=")
			mask := curlSecret(name)
			switch {
			case glued && mask != nil: // curl itself refuses --user=X: masked all the same
				out[i] = "--" + name + "=" + mask(v)
			case !glued && curlLongValued()[name] && i+1 < len(words):
				if i++; mask != nil {
					out[i] = mask(words[i])
				}
			}
		case len(w) > 1 && w[0] == '-':
			for j := 1; j < len(w); j++ {
				if strings.IndexByte(curlShortValued, w[j]) < 0 {
					continue
				}
				mask := curlSecret(w[j : j+1])
				switch {
				case j+1 < len(w) && mask != nil:
					out[i] = w[:j+1] + mask(w[j+1:])
				case j+1 == len(w) && i+1 < len(words):
					if i++; mask != nil {
						out[i] = mask(words[i])
					}
				}
				break
			}
		}
	}
}

// wholeValue is v (quoted as written or not) masked whole, unless it is a
// shell reference or masked already.
func wholeValue(v string) string {
	if reference(v) || v == Mask || v == "'"+Mask+"'" || v == `"`+Mask+`"` {
		return v
	}
	return masked(v)
}

// userPassword is v (USER:PASSWORD, quoted as written or not) with what
// follows its first colon masked, the user kept. A value without a colon
// (or with nothing after it) has no password; a password that is a shell
// reference is kept.
func userPassword(v string) string {
	return afterColon(v, func(s string) int { return strings.IndexByte(s, ':') })
}

// certPassword is v (curl's FILE:PASSWORD) with its password masked: what
// follows the first colon that is not escaped (\:) nor a drive letter's
// (C:\ or C:/). A PKCS#11 URI has none.
func certPassword(v string) string {
	return afterColon(v, func(s string) int {
		if strings.HasPrefix(s, "pkcs11:") {
			return -1
		}
		i := 0
		if len(s) > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') {
			i = 2
		}
		for ; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case ':':
				return i
			}
		}
		return -1
	})
}

// afterColon is v (quoted as written or not) with what follows the colon
// at colon(v's text) masked (its quotes kept), unless there is none, nothing follows it, or
// it is masked already or a shell reference.
func afterColon(v string, colon func(string) int) string {
	q, s := "", v
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		q, s = v[:1], v[1:len(v)-1]
	}
	i := colon(s)
	if i < 0 {
		return v
	}
	if pass := s[i+1:]; pass == "" || pass == Mask || (q != "'" && reference(pass)) {
		return v
	}
	return q + s[:i+1] + Mask + quotes(s[i+1:]) + q
}

// quotes is the quotes of a word's part (and the backslash of an escaped
// one), so that the word keeps its quoting once that part is masked.
func quotes(part string) string {
	var b strings.Builder
	for j := 0; j < len(part); j++ {
		switch c := part[j]; {
		case c == '\\' && j+1 < len(part) && (part[j+1] == '"' || part[j+1] == '\''):
			b.WriteString(part[j : j+2])
			j++
		case c == '"' || c == '\'':
			b.WriteByte(c)
		}
	}
	return b.String()
}
