package cmd

import (
	"os/user"
	"testing"
)

// TestUserFieldFirst: a user-format line's command is taken for a system
// crontab's user field and command only when its first word is a user of
// this host and no command and its second a path or a command; a command
// whose program this host lacks (`mail -s x root` with no mail) is not.
func TestUserFieldFirst(t *testing.T) {
	if _, err := user.Lookup("root"); err != nil {
		t.Skip("no root user in this host's passwd database")
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	tests := map[string]struct {
		command string
		want    bool
	}{
		"a user, then a path":                   {command: "root /opt/x.sh", want: true},
		"a user, then a command":                {command: "root sh -c 'x'", want: true},
		"a user, then an option":                {command: "root -s report", want: false},
		"a user alone":                          {command: "root", want: false},
		"a command that is no user":             {command: "sh /opt/x.sh", want: false},
		"a path":                                {command: "/root /opt/x.sh", want: false},
		"neither a user nor a command":          {command: "no-such-user-or-command /opt/x", want: false},
		"a user then a word that is no command": {command: "root no-such-command-here", want: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := userFieldFirst(tc.command); got != tc.want {
				t.Errorf("userFieldFirst(%q) = %v, want %v", tc.command, got, tc.want)
			}
		})
	}
}
