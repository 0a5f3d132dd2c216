package catchup

import (
	"strings"
	"testing"
)

// TestUnknownUserKeepsNoSecret: a user crontab's line put in a system
// crontab (/etc/cron.d) has its command's first word read as the user
// field, often a secret (PGPASSWORD=X catchup run ...): scan's warning
// names that user masked, as the line's stored command masks it; the
// lookup's own error, which quotes the name again, is left out then.
func TestUnknownUserKeepsNoSecret(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ user, want string }{
		"PGPASSWORD=":      {"PGPASSWORD=S3cret", `unknown user "PGPASSWORD=(redacted)"`},
		"a URL's password": {"https_proxy=http://u:S3cret@proxy", `unknown user "https_proxy=http://u:***@proxy"`},
		"no secret":        {"no-such-user-x", `unknown user "no-such-user-x": user: unknown user no-such-user-x`},
	} {
		t.Run(name, func(t *testing.T) {
			err := (&shellReplay{}).resolveUser(Machine{}, tc.user, "", false)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "S3cret") {
				t.Errorf("resolveUser(%q) = %v, want an error with %s and no secret", tc.user, err, tc.want)
			}
		})
	}
}
