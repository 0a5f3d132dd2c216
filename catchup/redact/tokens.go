package redact

import (
	"regexp"
	"strings"
	"sync"
)

// A bare argument can be a secret with nothing around it to say so:
// `vault login hvs.X`, `notify xoxb-X`, `deploy ghp_X`. No rule tells a
// random secret from a random word (a hash, a UUID, a file name) without
// masking those too, which would make their tasks unreplayable. Two shapes
// are safe: a token whose issuer gave it a prefix of its own so that it
// can be found in text (GitHub, GitLab, Slack, Vault, Stripe, npm, PyPI,
// Google, DigitalOcean, Shopify, Anthropic: the shapes secret scanners
// look for), masked after its prefix, which says what it was (ghp_***);
// and the token a program takes as a plain argument (vault login TOKEN,
// vaultLogin).

// tokenPrefixes start a token that names its issuer.
const tokenPrefixes = `ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|glrt-|gldt-|xox[abposre]-|hvs\.|hvb\.|hvr\.|` +
	`sk_live_|rk_live_|sk_test_|rk_test_|whsec_|sk-ant-|npm_|pypi-|AIza|dop_v1_|doo_v1_|shpat_|shpss_`

// prefixedToken is such a token as a word of its own, or a value after =
// or :, with at least 20 characters after its prefix (none of them a
// shell's).
var prefixedToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;&|("'=:,])(` + tokenPrefixes + `)[A-Za-z0-9_-]{20,}`)
})

// prefixedMask is such a token masked (ghp_***).
var prefixedMask = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s;&|("'=:,])(?:` + tokenPrefixes + `)` + regexp.QuoteMeta(Mask))
})

// tokenRule masks a prefixed token after its prefix. Its needs are the
// prefixes as clues (lower case; xox for xox[abposre]-).
func tokenRule() rule {
	return rule{needs: anyOf(tokenClues...), re: prefixedToken, with: func(m []string) string { return m[1] + m[2] + Mask }}
}

// tokenClues are tokenPrefixes as clues.
var tokenClues = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "glrt-", "gldt-", "xox", "hvs.", "hvb.", "hvr.",
	"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_", "sk-ant-", "npm_", "pypi-", "aiza", "dop_v1_", "doo_v1_", "shpat_", "shpss_"}

// maskedToken reports whether command holds a prefixed token masked.
func maskedToken(command string) bool {
	return strings.Contains(command, Mask) && prefixedMask().MatchString(command)
}

// vaultBoolean are vault login's options that take no value: any other
// option written without = takes the next word (-method userpass).
var vaultBoolean = map[string]bool{"-no-print": true, "-no-store": true, "-token-only": true, "-non-interactive": true,
	"-tls-skip-verify": true, "-h": true, "-help": true, "--help": true}

// vaultLogin masks, in out, the token `vault login` (or OpenBao's `bao
// login`) takes as its first argument: one without = (K=V are an auth
// method's, masked by their keys), not - (standard input).
func vaultLogin(args, out []string) {
	if len(args) == 0 || args[0] != "login" {
		return
	}
	for i := 1; i < len(args); i++ {
		_, w := wordQuotes(args[i])
		switch {
		case w == "--":
			continue
		case strings.HasPrefix(w, "-") && w != "-":
			if !strings.Contains(w, "=") && !vaultBoolean[strings.Replace(w, "--", "-", 1)] {
				i++
			}
		case w == "-" || strings.Contains(w, "="):
			return
		default:
			out[i] = wholeValue(args[i])
			return
		}
	}
}
