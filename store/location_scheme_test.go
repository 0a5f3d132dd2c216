package store

import (
	"regexp"
	"testing"
)

// FuzzSchemeOf: schemeOf and urlScheme read a scheme exactly as RFC 3986
// writes it, as the regular expressions they replaced did.
func FuzzSchemeOf(f *testing.F) {
	for _, seed := range []string{"postgres://u@h/db", "PostgreSQL://x", "pg:x", "file:a", "./a:b", "a", "", ":",
		"1a:", "a1+.-:", "a b:", "c:\\x", "s3://bucket", "postgres:/x", "é:x", "a:"} {
		f.Add(seed)
	}
	prefix := regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):`)
	url := regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)
	f.Fuzz(func(t *testing.T, s string) {
		want := ""
		if m := prefix.FindStringSubmatch(s); m != nil {
			want = m[1]
		}
		if got := schemeOf(s); got != want {
			t.Fatalf("schemeOf(%q) = %q, want %q", s, got, want)
		}
		want = ""
		if m := url.FindStringSubmatch(s); m != nil {
			want = m[1]
		}
		if got := urlScheme(s); got != want {
			t.Fatalf("urlScheme(%q) = %q, want %q", s, got, want)
		}
	})
}
