package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotesOf: root's scan looks for another user's notes of unrecorded
// fires where that user's fire keeps them: the lock directory a catchup
// run as that user, with cron's environment for its line, derives from
// the ledger (CATCHUP_STATE_DIR, else XDG_STATE_HOME, else HOME), and the
// spare note directory of that user's (CATCHUP_NOTE_DIR, else
// /dev/shm/catchup-UID). The same ledger spelled otherwise keeps the same
// directory.
func TestNotesOf(t *testing.T) {
	const pg = "postgres://u@db.example:5432/ledger?sslmode=disable"
	key := filepath.Base(mustLockDir(t, pg, 0, []string{"CATCHUP_STATE_DIR=/s"}))
	tests := map[string]struct {
		db            string
		env           []string
		lock, noteDir string
	}{
		"home":              {db: pg, env: []string{"HOME=/home/u"}, lock: "/home/u/.local/state/catchup/locks/" + key, noteDir: "/dev/shm/catchup-1000"},
		"xdg state home":    {db: pg, env: []string{"HOME=/home/u", "XDG_STATE_HOME=/x"}, lock: "/x/catchup/locks/" + key, noteDir: "/dev/shm/catchup-1000"},
		"catchup state dir": {db: pg, env: []string{"HOME=/home/u", "CATCHUP_STATE_DIR=/st", "CATCHUP_NOTE_DIR=/n"}, lock: "/st/locks/" + key, noteDir: "/n"},
		"another spelling":  {db: "postgres://v:pw@db.example/ledger?connect_timeout=5", env: []string{"HOME=/home/u"}, lock: "/home/u/.local/state/catchup/locks/" + key, noteDir: "/dev/shm/catchup-1000"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			lock, noteDir, err := notesOf(tc.db, 1000, tc.env)
			if err != nil || lock != tc.lock || noteDir != tc.noteDir {
				t.Errorf("notesOf = %q, %q, %v; want %q, %q", lock, noteDir, err, tc.lock, tc.noteDir)
			}
		})
	}
	if _, _, err := notesOf(pg, 1000, nil); err == nil || !strings.Contains(err.Error(), "$HOME is not defined") {
		t.Errorf("notesOf without HOME: %v, want $HOME is not defined", err)
	}
}

// TestNotesOfThisUser: for this process's user and environment, notesOf is
// the lock directory and note directory every command of its uses.
func TestNotesOfThisUser(t *testing.T) {
	t.Setenv("CATCHUP_STATE_DIR", t.TempDir())
	const pg = "postgres://u@127.0.0.1:1/ledger"
	m, err := newMachine(&globals{}, pg, false)
	if err != nil {
		t.Fatal(err)
	}
	lock, noteDir, err := notesOf(pg, os.Geteuid(), os.Environ())
	if err != nil || lock != m.LockDir || noteDir != m.NoteDir {
		t.Errorf("notesOf = %q, %q, %v; want the machine's %q, %q", lock, noteDir, err, m.LockDir, m.NoteDir)
	}
}

func mustLockDir(t *testing.T, db string, uid int, env []string) string {
	t.Helper()
	lock, _, err := notesOf(db, uid, env)
	if err != nil {
		t.Fatal(err)
	}
	return lock
}

// TestStateDirOfRefusesOddPaths: a user's state directory, where the
// default ledger and a PostgreSQL ledger's locks go, is never read
// relative to the working directory (a relative or ~ HOME, which cron
// leaves as the crontab says) nor made of a CATCHUP_STATE_DIR with a ~
// nothing expanded or a control character: each is refused naming it.
func TestStateDirOfRefusesOddPaths(t *testing.T) {
	tests := map[string]struct {
		uid     int
		env     map[string]string
		want    string // the directory; "" when refused
		wantErr string
	}{
		"home":               {uid: 1000, env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/state/catchup"},
		"relative home":      {uid: 1000, env: map[string]string{"HOME": "u"}, wantErr: `HOME="u" is not an absolute path`},
		"tilde home":         {uid: 1000, env: map[string]string{"HOME": "~"}, wantErr: `HOME="~" is not an absolute path`},
		"relative home xdg":  {uid: 1000, env: map[string]string{"HOME": "u", "XDG_STATE_HOME": "/x"}, want: "/x/catchup"},
		"relative home root": {uid: 0, env: map[string]string{"HOME": "u"}, want: "/var/lib/catchup"},
		"state dir tilde":    {uid: 1000, env: map[string]string{"HOME": "/home/u", "CATCHUP_STATE_DIR": "~/st"}, wantErr: "CATCHUP_STATE_DIR=~/st: nothing expanded its ~"},
		"state dir control":  {uid: 0, env: map[string]string{"CATCHUP_STATE_DIR": "/st\r"}, wantErr: `CATCHUP_STATE_DIR="/st\r" holds a control character`},
		"state dir relative": {uid: 1000, env: map[string]string{"HOME": "/home/u", "CATCHUP_STATE_DIR": "no-such-st"}, wantErr: "CATCHUP_STATE_DIR=no-such-st is not an absolute path"},
		"state dir absolute": {uid: 1000, env: map[string]string{"HOME": "u", "CATCHUP_STATE_DIR": "/st"}, want: "/st"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir, err := stateDirOf(tc.uid, func(k string) string { return tc.env[k] })
			switch {
			case tc.wantErr == "" && (err != nil || dir != tc.want):
				t.Errorf("stateDirOf = %q, %v; want %q", dir, err, tc.want)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("stateDirOf = %q, %v; want an error with %q", dir, err, tc.wantErr)
			}
		})
	}
}
