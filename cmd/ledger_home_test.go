package cmd

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestHomeIsRootHint: only the default ledger of a user other than root
// whose HOME is / gets its error's cause named (HOME, and the fix); any
// other ledger, user or error is left as it is.
func TestHomeIsRootHint(t *testing.T) {
	const def = "/.local/state/catchup/catchup.db"
	denied := fmt.Errorf("create ledger directory /.local/state/catchup: %w", os.ErrPermission)
	tests := map[string]struct {
		err  error
		path string
		uid  int
		env  map[string]string
		hint bool
	}{
		"home is /, cannot create":         {err: denied, path: def, uid: 65534, env: map[string]string{"HOME": "/"}, hint: true},
		"home is //, no ledger":            {err: store.ErrNoLedger, path: def, uid: 65534, env: map[string]string{"HOME": "//"}, hint: true},
		"root":                             {err: denied, path: def, uid: 0, env: map[string]string{"HOME": "/"}},
		"a user's home":                    {err: denied, path: "/home/u/.local/state/catchup/catchup.db", uid: 1000, env: map[string]string{"HOME": "/home/u"}},
		"--db given":                       {err: denied, path: "/srv/c.db", uid: 65534, env: map[string]string{"HOME": "/"}},
		"CATCHUP_STATE_DIR there":          {err: denied, path: def, uid: 65534, env: map[string]string{"HOME": "/", "CATCHUP_STATE_DIR": "/.local/state/catchup/"}},
		"another error (a corrupt ledger)": {err: errors.New("file is not a database"), path: def, uid: 65534, env: map[string]string{"HOME": "/"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := homeIsRootHint(tc.err, tc.path, tc.uid, func(k string) string { return tc.env[k] })
			hinted := strings.Contains(got.Error(), "HOME is / for uid") && strings.Contains(got.Error(), "set HOME to the user's home in the crontab")
			if hinted != tc.hint || !errors.Is(got, tc.err) {
				t.Errorf("homeIsRootHint = %v; want hinted %v, wrapping %v", got, tc.hint, tc.err)
			}
		})
	}
}
