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
	tests := map[string]struct {
		groups string
		want   bool
	}{
		"named after the owner, no members":   {groups: me.Username + ":x:" + g + ":\n", want: true},
		"named after the owner, only it":      {groups: me.Username + ":x:" + g + ":" + me.Username + "\n", want: true},
		"another member":                      {groups: me.Username + ":x:" + g + ":" + me.Username + ",mallory\n", want: false},
		"named otherwise":                     {groups: "staff:x:" + g + ":\n", want: false},
		"not in the group database":           {groups: "other:x:99999:\n", want: false},
		"a malformed line, then the real one": {groups: "junk\n" + me.Username + ":x:" + g + ":\n", want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "group")
			if err := os.WriteFile(path, []byte(tc.groups), 0o644); err != nil {
				t.Fatal(err)
			}
			old := groupFile
			groupFile = path
			defer func() { groupFile = old }()
			if got := PrivateGroup(fi); got != tc.want {
				t.Errorf("PrivateGroup = %v, want %v", got, tc.want)
			}
		})
	}
}
