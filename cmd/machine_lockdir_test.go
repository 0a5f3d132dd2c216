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
