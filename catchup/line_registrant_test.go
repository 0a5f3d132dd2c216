package catchup

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

func TestLineRegistrant(t *testing.T) {
	for name, tc := range map[string]struct {
		source, uid, user string
		ok                bool
	}{
		"uid and user":          {source: "crontab:/c:3 uid=65534 user=nobody", uid: "65534", user: "nobody", ok: true},
		"uid without a name":    {source: "crontab:/c:3 uid=1001", uid: "1001", ok: true},
		"a path with a colon":   {source: "crontab:/a:b/c:3 uid=0 user=root", uid: "0", user: "root", ok: true},
		"a path with uid= text": {source: "crontab:/x uid=7/c:3", ok: false},
		"an older catchup's":    {source: "crontab:/c:3"},
		"found on stdin":        {source: "crontab::3 uid=0 user=root", uid: "0", user: "root", ok: true},
		"a run's":               {source: "run:uid=5"},
		"a daemon line's":       {source: "daemon:/c:3 uid=5"},
		"a bad uid":             {source: "crontab:/c:3 uid=x user=y"},
	} {
		t.Run(name, func(t *testing.T) {
			uid, user, ok := lineRegistrant(tc.source)
			if uid != tc.uid || user != tc.user || ok != tc.ok {
				t.Errorf("lineRegistrant(%q) = %q, %q, %v; want %q, %q, %v", tc.source, uid, user, ok, tc.uid, tc.user, tc.ok)
			}
			if p := lineSource(tc.source); tc.ok && strings.Contains(p, " uid=") {
				t.Errorf("lineSource(%q) = %q: the suffix is no part of the file", tc.source, p)
			}
		})
	}
}

// TestOwnNotifyCmdCrontabLine: a root process runs the stored alert of a
// crontab line's task only when the line is root's: as its registration
// records, else (an older catchup's registration) while its file is root's.
func TestOwnNotifyCmdCrontabLine(t *testing.T) {
	dir := t.TempDir()
	rootFile, userFile := filepath.Join(dir, "root"), filepath.Join(dir, "user")
	for _, f := range []string{rootFile, userFile} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(userFile, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(rootFile, link); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		uid    int
		source string
		own    bool
		root   bool // only as root: the files' owners say so
	}{
		"root, root's line":                        {source: "crontab:/c:1 uid=0 user=root", own: true},
		"root, another user's line":                {source: "crontab:/c:1 uid=65534 user=nobody"},
		"root, another user's line in root's file": {source: "crontab:" + rootFile + ":1 uid=65534 user=nobody"},
		"root, an older catchup's, root's file":    {source: "crontab:" + rootFile + ":1", own: true, root: true},
		"root, an older catchup's, a user's file":  {source: "crontab:" + userFile + ":1", root: true},
		"root, an older catchup's, file gone":      {source: "crontab:" + filepath.Join(dir, "gone") + ":1"},
		"root, an older catchup's, stdin":          {source: "crontab::1"},
		"root, an older catchup's, root's symlink": {source: "crontab:" + link + ":1", own: true, root: true},
		"a user, another user's line":              {uid: 1001, source: "crontab:/c:1 uid=65534 user=nobody", own: true},
		"root, root's run":                         {source: "run", own: true},
		"root, a user's run":                       {source: "run:uid=65534"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("the files are root's only when the test runs as root")
			}
			if got := ownNotifyCmd(tc.uid, store.Task{Name: "t", Source: tc.source}); got != tc.own {
				t.Errorf("ownNotifyCmd(%d, %q) = %v, want %v", tc.uid, tc.source, got, tc.own)
			}
		})
	}
}

// TestLineUserChanged: a line is refused when the uid it runs as is the one
// its registration recorded, under another name (a uid reused), and only
// then.
func TestLineUserChanged(t *testing.T) {
	nobody := &shellReplay{as: &user.User{Uid: "65534", Username: "nobody"}}
	for name, tc := range map[string]struct {
		source string
		sr     *shellReplay
		refuse bool
	}{
		"the same user":                 {source: "crontab:/c:1 uid=65534 user=nobody", sr: nobody},
		"its uid reused":                {source: "crontab:/c:1 uid=65534 user=alice", sr: nobody, refuse: true},
		"another uid (a named user's)":  {source: "crontab:/c:1 uid=1001 user=nobody", sr: nobody},
		"root's line, root's uid":       {source: "crontab:/c:1 uid=0 user=root", sr: &shellReplay{}},
		"root's uid under another name": {source: "crontab:/c:1 uid=0 user=toor", sr: &shellReplay{}, refuse: true},
		"an older catchup's":            {source: "crontab:/c:1", sr: nobody},
		"another file's":                {source: "crontab:/d:1 uid=65534 user=alice", sr: nobody},
		"no name recorded":              {source: "crontab:/c:1 uid=65534", sr: nobody},
	} {
		t.Run(name, func(t *testing.T) {
			err := lineUserChanged(Machine{UID: 0}, store.Task{Name: "j", Source: tc.source}, "/c", tc.sr)
			if (err != nil) != tc.refuse || err != nil && !errors.Is(err, filetrust.ErrRefused) {
				t.Errorf("lineUserChanged(%q) = %v, want refused %v", tc.source, err, tc.refuse)
			}
		})
	}
}
