package catchup

import (
	"os/user"
	"strconv"
	"testing"

	"github.com/catchup/catchup/catchup/crontab"
)

// TestShellReplayHome: a crontab line runs in its user's home as cron runs
// it: a system crontab's line naming its user, and a spool crontab's line,
// in the user's home from the passwd database, never in the scanning
// process's $HOME (a root scan may have none, or a sudo user's); a line of
// another file given to scan in the scanning user's home (Machine.HomeDir).
func TestShellReplayHome(t *testing.T) {
	t.Parallel()
	me, err := user.Current()
	if err != nil {
		t.Skip("no passwd entry for the current user")
	}
	tests := map[string]struct {
		se   sourcedEntry
		want string
	}{
		"system crontab line naming the user": {se: sourcedEntry{Entry: crontab.Entry{User: me.Username}, path: "/etc/crontab"}, want: me.HomeDir},
		"spool crontab of the user":           {se: sourcedEntry{path: "/var/spool/cron/crontabs/" + me.Username, user: me.Username, spool: true}, want: me.HomeDir},
		"another file of the user":            {se: sourcedEntry{path: "/srv/jobs.crontab", user: me.Username}, want: "/from/env"},
		"stdin":                               {se: sourcedEntry{}, want: "/from/env"},
	}
	uid, _ := strconv.Atoi(me.Uid)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := Machine{UID: uid, HomeDir: func(string) (string, error) { return "/from/env", nil }}
			sr, err := newShellReplay(m, tc.se)
			if err != nil {
				t.Fatal(err)
			}
			if sr.dir != tc.want {
				t.Errorf("the line runs in %q, want %q", sr.dir, tc.want)
			}
		})
	}
}
