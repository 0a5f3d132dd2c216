package redact

import (
	"regexp"
	"strings"
	"sync"
)

// This file keeps masking cheap where there is nothing to mask. Each rule
// says what a text holds wherever its regexp matches (its need: an @ and
// a // for a URL's password, an = and one of the words of a secret's key
// for password=X, ...), and a text without it is not searched. Most
// commands hold no secret: `true`, `/opt/settle.sh`, `sh -c 'cd /srv &&
// ./bin/run --date "$CATCHUP_SLOT"'`. A --cron fire masks its command on
// every fire, in a new process: searching it with every rule compiled the
// rules' regexps first (2-4 ms of CPU, a tenth of a fire), then ran each
// over the whole text (a crontab line of 1 MB: 2-4 s).
//
// A need must hold for every match, or a secret goes unmasked: the tests
// mask each case both ways, with and without the needs
// (TestNeedsMaskAsEveryRule, FuzzNeeds).

// clues is a text folded for its needs: ASCII letters in lower case, and
// the two other letters that a case-insensitive regexp takes for ASCII
// ones written as those (ſ for s, the Kelvin sign for k). Other letters
// are kept: a need names ASCII words only.
type clues string

func cluesOf(s string) clues {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return clues(strings.Map(fold, s))
		}
	}
	return clues(s)
}

func fold(r rune) rune {
	switch {
	case 'A' <= r && r <= 'Z':
		return r + ('a' - 'A')
	case r == 'ſ':
		return 's'
	case r == '\u212a': // the Kelvin sign
		return 'k'
	}
	return r
}

// need reports whether a text (as its clues) may hold a rule's match.
type need func(c clues) bool

// all needs each of words in the text.
func all(words ...string) need {
	return func(c clues) bool {
		for _, w := range words {
			if !strings.Contains(string(c), w) {
				return false
			}
		}
		return true
	}
}

// anyOf needs one of words in the text.
func anyOf(words ...string) need {
	return func(c clues) bool {
		for _, w := range words {
			if strings.Contains(string(c), w) {
				return true
			}
		}
		return false
	}
}

func and(a, b need) need { return func(c clues) bool { return a(c) && b(c) } }

// keyWords are what the name of a secret's key holds, one of them
// (secretKey, dashFlag): password, passwd, passphrase, a *pass, secret,
// token, and every *key.
var keyWords = []string{"pass", "secret", "token", "key"}

// queryWords are keyWords and what a secret's query parameter holds
// (queryKey): pwd, sig, *signature, auth.
var queryWords = append(keyWords[:len(keyWords):len(keyWords)], "pwd", "sig", "auth")

// headerWords are what the name of a secret's header holds (headerName):
// key, apikey, token, secret, authorization, cookie.
var headerWords = []string{"key", "token", "secret", "auth", "cookie"}

// keyNeeds is a secret flag's need (secretFlagRE); headerNeeds a header
// word's (headerWord); urlNeeds an argv word's URL password's (argvURLRE).
var (
	keyNeeds    = anyOf(keyWords...)
	headerNeeds = and(all(":"), anyOf(headerWords...))
	urlNeeds    = all("@", "//", ":")
)

// lazy is pattern compiled the first time it is asked for.
func lazy(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
