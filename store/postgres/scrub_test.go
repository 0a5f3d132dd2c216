package postgres

import "testing"

func TestScrub(t *testing.T) {
	for name, tc := range map[string]struct {
		text, pw string
		keep     []string
		want     string
	}{
		"a leaked password":      {"connect with password=S3cret failed", "S3cret", nil, "connect with password=xxxxx failed"},
		"each time":              {"S3cret; S3cret", "S3cret", nil, "xxxxx; xxxxx"},
		"inside a word":          {"ledger unreachable: connection refused", "u", nil, "ledger unreachable: connection refused"},
		"the user's name":        {"failed to connect to `user=postgres database=app`", "postgres", []string{"postgres", "app"}, "failed to connect to `user=postgres database=app`"},
		"inside a host's name":   {"lookup db.prod.internal: no such host", "prod", []string{"db.prod.internal"}, "lookup db.prod.internal: no such host"},
		"beside a kept name":     {"user=postgres password=postgres1", "postgres1", []string{"postgres"}, "user=postgres password=xxxxx"},
		"edges that are no word": {"pw=p@ss! x", "p@ss!", nil, "pw=xxxxx x"},
		"no password":            {"anything", "", nil, "anything"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := scrub(tc.text, tc.pw, tc.keep); got != tc.want {
				t.Errorf("scrub(%q, %q) = %q, want %q", tc.text, tc.pw, got, tc.want)
			}
		})
	}
}
