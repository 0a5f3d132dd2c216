package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestUsersUnusableNoteReserveIsMadeAgain: a user's note reserve (the space
// the lock directory keeps for a note when the ledger's disk fills) left
// mode 000, or left root's (a root shell's chmod -R or chown -R, a restore
// from a backup), could be neither opened to remake it nor spent by its
// user's fires, and nothing said so: the next full disk lost a note, and
// its slot, which ran, ran again. The user's next scan makes it whole
// again, theirs, mode 0600.
func TestUsersUnusableNoteReserveIsMadeAgain(t *testing.T) {
	needRoot(t)
	for name, spoil := range map[string]func(path string) error{
		"mode 000": func(path string) error { return os.Chmod(path, 0) },
		"root's":   func(path string) error { return os.Chown(path, 0, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			bin := testBinDir(t)
			home := userDir(t, filepath.Dir(bin), "nobody-home", 65534, 65534)
			db := filepath.Join(home, "c.db")
			if p := nobodysCatchup(t, bin, home, db, "2026-01-01T00:00:05Z", "run", "--task", "t", "--", "true"); p.run(t) != 0 {
				t.Fatalf("nobody's run: %s", p.stderr.String())
			}
			reserve := filepath.Join(home, "c.db.locks", ".notes-reserve")
			if err := spoil(reserve); err != nil {
				t.Fatal(err)
			}
			if p := nobodysCatchup(t, bin, home, db, "2026-01-01T00:10:00Z", "scan"); p.run(t) != 0 {
				t.Fatalf("nobody's scan: %s%s", p.stdout.String(), p.stderr.String())
			}
			fi, err := os.Lstat(reserve)
			if err != nil {
				t.Fatal(err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if fi.Mode().Perm() != 0o600 || st.Uid != 65534 || fi.Size() != 256<<10 {
				t.Errorf("after nobody's scan the reserve is mode %v, uid %d, %d bytes; want 0600, nobody's (65534), %d bytes", fi.Mode(), st.Uid, fi.Size(), 256<<10)
			}
		})
	}
}
