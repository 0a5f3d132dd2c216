package catchup

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
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

// TestCatchupMissing: a line whose catchup the PATH cron gives it does not
// find is said, naming the line and the fix; one it finds, or whose first
// word is the shell's to read, is not.
func TestCatchupMissing(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "catchup"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Machine{UID: os.Getuid(), CronPath: "/nonexistent"}
	for _, tc := range []struct {
		name, command string
		vars          []string
		want          string
	}{
		{"found on the crontab's PATH=", "catchup run --task t -- true", []string{"PATH=" + bin}, ""},
		{"on no directory of cron's PATH", "catchup run --task t -- true", nil, "f:3: no directory of PATH=/nonexistent (cron's default"},
		{"on no directory of the crontab's PATH=", "catchup run --task t -- true", []string{"PATH=/usr/bin"}, "(the crontab's, above the line)"},
		{"a full path", bin + "/catchup run --task t -- true", nil, ""},
		{"a full path that cannot run", bin + "/plain run --task t -- true", nil, "f:3: the line runs " + bin + "/plain, which"},
		{"a quoted word", "'catchup' run --task t -- true", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := &shellReplay{command: tc.command, vars: tc.vars, where: "f:3", dir: bin}
			got := sr.catchupMissing(m)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("catchupMissing = %q, want %q", got, tc.want)
			}
		})
	}
}
