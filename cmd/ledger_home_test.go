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

// TestHomeIsRootLockHint: only the lock directory a HOME of / puts under
// /.local/state/catchup (a PostgreSQL ledger's, of a user other than
// root) gets its error's cause named (HOME, and the fix); any other
// directory, user or error is left as it is.
func TestHomeIsRootLockHint(t *testing.T) {
	const def = "/.local/state/catchup/locks/0123456789ab"
	denied := fmt.Errorf("create lock directory: %w", os.ErrPermission)
	tests := map[string]struct {
		err     error
		lockDir string
		uid     int
		env     map[string]string
		hint    bool
	}{
		"home is /, cannot create":    {err: denied, lockDir: def, uid: 65534, env: map[string]string{"HOME": "/"}, hint: true},
		"home is //":                  {err: denied, lockDir: def, uid: 65534, env: map[string]string{"HOME": "//"}, hint: true},
		"root":                        {err: denied, lockDir: "/var/lib/catchup/locks/0123456789ab", uid: 0, env: map[string]string{"HOME": "/"}},
		"a user's home":               {err: denied, lockDir: "/home/u/.local/state/catchup/locks/0123456789ab", uid: 1000, env: map[string]string{"HOME": "/home/u"}},
		"CATCHUP_STATE_DIR there":     {err: denied, lockDir: def, uid: 65534, env: map[string]string{"HOME": "/", "CATCHUP_STATE_DIR": "/.local/state/catchup/"}},
		"XDG_STATE_HOME chose it":     {err: denied, lockDir: "/srv/s/catchup/locks/0123456789ab", uid: 65534, env: map[string]string{"HOME": "/", "XDG_STATE_HOME": "/srv/s"}},
		"another error (a full disk)": {err: fmt.Errorf("create lock directory: %w", errors.New("no space left on device")), lockDir: def, uid: 65534, env: map[string]string{"HOME": "/"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := homeIsRootLockHint(tc.err, tc.lockDir, tc.uid, func(k string) string { return tc.env[k] })
			hinted := strings.Contains(got.Error(), "HOME is / for uid") && strings.Contains(got.Error(), "or set CATCHUP_STATE_DIR")
			if hinted != tc.hint || !errors.Is(got, tc.err) {
				t.Errorf("homeIsRootLockHint = %v; want hinted %v, wrapping %v", got, tc.hint, tc.err)
			}
		})
	}
}
