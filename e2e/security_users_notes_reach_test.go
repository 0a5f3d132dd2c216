package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootUsersNotesOutOfTheirReach: root's scan looks for another
// user's notes of unrecorded fires in the lock directory their line names
// (CATCHUP_STATE_DIR) as that user would: behind a directory of root's
// that nobody cannot enter, there is nothing of theirs to read, whatever
// is there. Root's scan looked with root's rights, found a directory of a
// third user's there, refused it as not nobody's, and said so in a
// warning naming it and its owner (telling whoever reads root's warnings
// that it exists, and whose it is), replaying none of nobody's lines, as
// it does not when nothing is there.
func TestRootUsersNotesOutOfTheirReach(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin) // traversable by everyone (testBinDir)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	private := userDir(t, top, "private", 0, 0)
	state := filepath.Join(private, "state")
	mine := newCatchup(t, db, "2026-01-01T00:00:05Z", "run", "--task", "mine", "--cron", "0 * * * *", "--", "true")
	mine.cmd.Env = append(mine.cmd.Env, "CATCHUP_STATE_DIR="+state) // root's own lock directory of the ledger, there
	if code := mine.run(t); code != 0 {
		t.Fatalf("root's fire exited %d: %s", code, mine.stderr.String())
	}
	found, _ := filepath.Glob(filepath.Join(state, "locks", "*"))
	if len(found) != 1 {
		t.Fatalf("root's lock directories under %s: %q, want one", state, found)
	}
	if err := os.Chown(found[0], 1, 1); err != nil { // the lock directory of nobody's line: daemon's, behind root's
		t.Fatal(err)
	}
	crontab := filepath.Join(top, "crontab")
	writeFileOf(t, crontab, "CATCHUP_DB="+db+"\n"+asCatchup+"=1\nPATH="+bin+":/usr/bin:/bin\nHOME="+home+"\n"+
		"CATCHUP_STATE_DIR="+state+"\n0 * * * * catchup run --task who -- true\n", 65534)
	for _, now := range []string{"2026-01-01T00:30:00Z", "2026-01-01T01:30:00Z"} {
		scan := newCatchup(t, db, now, "scan", "--crontab", crontab)
		code := scan.run(t)
		out := scan.stdout.String() + scan.stderr.String()
		t.Logf("root's scan at %s: exit %d\n%s", now, code, out)
		if strings.Contains(out, "not replaying the lines of nobody") || strings.Contains(out, "refused") {
			t.Errorf("root's scan at %s looked for nobody's notes with root's rights: it refused what it found behind %s, and held nobody's lines back", now, private)
		}
	}
}
