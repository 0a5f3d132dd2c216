package catchup

import (
	"errors"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestUnknownTaskKeepsNoSecret: a task named on the command line that the
// ledger does not hold (catchup history, explain, pause, forget, scan
// --task, ...) is quoted masked when it has a secret's shape: a secret
// given there by mistake (a crontab line's words shifted, PGPASSWORD=X
// taken for the task) was echoed in clear before.
func TestUnknownTaskKeepsNoSecret(t *testing.T) {
	for name, tc := range map[string]struct{ task, want string }{
		"an assignment":      {"PGPASSWORD=S3cret", `no task "PGPASSWORD=***" in the ledger`},
		"a URL's password":   {"https://u:S3cret@h/x", `no task "https://u:***@h/x" in the ledger`},
		"a spaced pair":      {"password = S3cret", `no task "password = ***" in the ledger`},
		"a name kept":        {"nightly-backup", `no task "nightly-backup" in the ledger`},
		"a long name is cut": {strings.Repeat("a", 100), `no task "` + strings.Repeat("a", 64) + `"... (100 characters) in the ledger`},
	} {
		t.Run(name, func(t *testing.T) {
			err := UnknownTask(tc.task)
			if !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "S3cret") {
				t.Errorf("UnknownTask(%q) = %q, want it to start %q", tc.task, err, tc.want)
			}
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("UnknownTask(%q) is not store.ErrNotFound", tc.task)
			}
		})
	}
}
