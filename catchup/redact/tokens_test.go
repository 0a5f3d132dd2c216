package redact

import "testing"

// TestBareTokens: a bare argument that is a secret by its issuer's prefix
// (masked after the prefix) or by its place (vault login TOKEN) never
// reaches the ledger; other bare words, short ones with those prefixes,
// shell references and vault's other arguments are kept. Before, every
// one of these tokens was stored whole: only a URL's user, a key=value,
// a flag or a header said "secret".
func TestBareTokens(t *testing.T) {
	const gh = "ghp_S3cretS3cretS3cretS3cretS3cretS3cr"
	checkShapes(t, map[string]shape{
		"github token":        {argv: []string{"deploy", gh}, want: []string{"deploy", "ghp_***"}},
		"slack bot token":     {argv: []string{"notify", "xoxb-1234-5678-S3cretS3cretS3cret"}, want: []string{"notify", "xoxb-***"}},
		"vault token":         {argv: []string{"vault", "login", "hvs.CAESIS3cretS3cretS3cretS3cret"}, want: []string{"vault", "login", "***"}},
		"legacy vault token":  {argv: []string{"vault", "login", "s.S3cretS3cretS3cret"}, want: []string{"vault", "login", "***"}},
		"vault options first": {argv: []string{"vault", "login", "-no-print", "-address", "https://v:8200", "S3cret"}, want: []string{"vault", "login", "-no-print", "-address", "https://v:8200", "***"}},
		"openbao":             {argv: []string{"bao", "login", "-address=https://v", "S3cret"}, want: []string{"bao", "login", "-address=https://v", "***"}},
		"token as a value":    {argv: []string{"x", "--header=X:" + gh}, want: []string{"x", "--header=X:ghp_***"}},
		"stripe key":          {argv: []string{"x", "sk_live_S3cretS3cretS3cretS3cret"}, want: []string{"x", "sk_live_***"}},
		"in a shell line":     {argv: []string{"sh", "-c", "echo " + gh + " | gh auth login --with-token"}, want: []string{"sh", "-c", "echo ghp_*** | gh auth login --with-token"}},
		"in a sh -c line":     {argv: []string{"sh", "-c", "vault login S3cret && vault read x"}, want: []string{"sh", "-c", "vault login *** && vault read x"}},
		"short, not a token":  {argv: []string{"git", "checkout", "ghp_fix"}, want: []string{"git", "checkout", "ghp_fix"}},
		"a prefix inside":     {argv: []string{"x", "myghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, want: []string{"x", "myghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}},
		"a hash":              {argv: []string{"check", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}, want: []string{"check", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}},
		"vault auth method":   {argv: []string{"vault", "login", "-method", "userpass", "username=bob"}, want: []string{"vault", "login", "-method", "userpass", "username=bob"}},
		"vault from stdin":    {argv: []string{"vault", "login", "-"}, want: []string{"vault", "login", "-"}},
		"vault other command": {argv: []string{"vault", "read", "secret/x"}, want: []string{"vault", "read", "secret/x"}},
		"vault reference": {argv: []string{"vault", "login", "$VAULT_TOKEN"}, want: []string{"vault", "login", "$VAULT_TOKEN"},
			line: "vault login $VAULT_TOKEN", lineWant: "vault login $VAULT_TOKEN"},
	})
}
