package filetrust

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPrivateGroup: a file's group is its owner's private group only when
// the group database names it after the owner, it is the owner's primary
// group, and no one else is a member.
func TestPrivateGroup(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	uid, _ := strconv.Atoi(me.Uid)
	gid, _ := strconv.Atoi(me.Gid)
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o664); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(file, uid, gid); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	g := strconv.Itoa(gid)
	passwd := me.Username + ":x:" + me.Uid + ":" + g + "::/root:/bin/sh\n"
	tests := map[string]struct {
		groups, passwd string
		want           bool
	}{
		"named after the owner, no members":   {groups: me.Username + ":x:" + g + ":\n", want: true},
		"named after the owner, only it":      {groups: me.Username + ":x:" + g + ":" + me.Username + "\n", want: true},
		"another member":                      {groups: me.Username + ":x:" + g + ":" + me.Username + ",mallory\n"},
		"named otherwise":                     {groups: "staff:x:" + g + ":\n"},
		"not in the group database":           {groups: "other:x:99999:\n"},
		"a malformed line, then the real one": {groups: "junk\n" + me.Username + ":x:" + g + ":\n", want: true},
		"a second line of the gid, a member":  {groups: me.Username + ":x:" + g + ":\ndevs:x:" + g + ":mallory\n"},
		"another user's primary group (passwd)": {groups: me.Username + ":x:" + g + ":\n",
			passwd: "mallory:x:54321:" + g + "::/home/mallory:/bin/sh\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			groups, users := filepath.Join(dir, "group"), filepath.Join(dir, "passwd")
			if err := os.WriteFile(groups, []byte(tc.groups), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(users, []byte(passwd+tc.passwd), 0o644); err != nil {
				t.Fatal(err)
			}
			oldG, oldP := groupFile, passwdFile
			groupFile, passwdFile = groups, users
			defer func() { groupFile, passwdFile = oldG, oldP }()
			if got := PrivateGroup(fi); got != tc.want {
				t.Errorf("PrivateGroup = %v, want %v", got, tc.want)
			}
		})
	}
}
