package catchup

import (
	"os/user"
	"slices"
	"testing"
)

// TestUserEnvGivesCronsPath: another user's line is replayed with the PATH
// cron gives its fires, the crontab's PATH= else /usr/bin:/bin, never the
// scan's (root's); TZ and the locale still come from scan.
func TestUserEnvGivesCronsPath(t *testing.T) {
	m := Machine{Host: "h", Environ: []string{"PATH=/root/bin:/usr/local/sbin:/usr/bin", "TZ=UTC", "LANG=C.UTF-8", "ROOT_TOKEN=x"}}
	for _, tc := range []struct {
		name string
		vars []string
		want string
	}{
		{"no PATH= in the crontab", nil, "PATH=/usr/bin:/bin"},
		{"the crontab's PATH=", []string{"PATH=/opt/bin:/usr/bin:/bin"}, "PATH=/opt/bin:/usr/bin:/bin"},
		{"an empty PATH=", []string{"PATH="}, "PATH="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := &shellReplay{as: &user.User{Username: "alice", HomeDir: "/home/alice"}, user: "alice", vars: tc.vars}
			env := sr.userEnv(m)
			if !slices.Contains(env, tc.want) {
				t.Errorf("env %q: want %s", env, tc.want)
			}
			for _, kv := range []string{"TZ=UTC", "LANG=C.UTF-8"} {
				if !slices.Contains(env, kv) {
					t.Errorf("env %q: want %s from scan's", env, kv)
				}
			}
			if slices.Contains(env, "ROOT_TOKEN=x") {
				t.Errorf("env %q holds scan's ROOT_TOKEN", env)
			}
		})
	}
}
