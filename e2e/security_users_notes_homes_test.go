package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootReadsUsersNotesBoundedInAll: root reads at most 64 MiB of
// another user's notes files in all, wherever their lines keep them. Each
// line of nobody's crontab names a state directory of its own
// (CATCHUP_STATE_DIR above it), each holding a sparse notes file of 40 MiB
// (a line every 512 KiB: 80 KiB of nobody's disk): root's scan read 40 MiB
// of each, the 64 MiB bound counted afresh in each directory, so that a
// crontab of a thousand such lines made every root scan, reader and
// scrape read 40 GB. Past 64 MiB in all, the file is refused as a file
// too large in one directory is: root replays none of nobody's lines, says
// so naming the file, and exits 1.
func TestRootReadsUsersNotesBoundedInAll(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	const homes = 4
	var text strings.Builder
	fmt.Fprintf(&text, "CATCHUP_DB=%s\n%s=1\nPATH=%s:/usr/bin:/bin\nHOME=%s\n", db, asCatchup, bin, home)
	for i := range homes {
		state := userDir(t, home, fmt.Sprintf("s%d", i), 65534, 65534)
		fmt.Fprintf(&text, "CATCHUP_STATE_DIR=%s\n0 * * * * catchup run --task w%d -- true\n", state, i)
	}
	crontab := filepath.Join(top, "crontab")
	writeFileOf(t, crontab, text.String(), 65534)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	// nobody's fire of w0 makes its lock directory of this ledger; the
	// others are made alike, as their fires would.
	fire := nobodysCatchup(t, bin, home, db, "2026-01-01T01:00:05Z", "run", "--task", "w0", "--", "true")
	fire.cmd.Env = append(fire.cmd.Env, "CATCHUP_STATE_DIR="+filepath.Join(home, "s0"))
	if code := fire.run(t); code != 0 {
		t.Fatalf("nobody's fire exited %d: %s", code, fire.stderr.String())
	}
	found, _ := filepath.Glob(filepath.Join(home, "s0", "locks", "*"))
	if len(found) != 1 {
		t.Fatalf("nobody's lock directories under s0: %q, want one", found)
	}
	var last string
	for i := range homes {
		locks := filepath.Join(home, fmt.Sprintf("s%d", i), "locks")
		if i > 0 {
			userDir(t, userDir(t, filepath.Dir(locks), "locks", 65534, 65534), filepath.Base(found[0]), 65534, 65534)
		}
		last = filepath.Join(locks, filepath.Base(found[0]), ".unrecorded.jsonl")
		writeFileOf(t, last, "", 65534)
		if err := os.Truncate(last, 40<<20); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(last, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for off := int64(512 << 10); off < 40<<20; off += 512 << 10 {
			if _, err := f.WriteAt([]byte("\n"), off); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
	}
	scan := newCatchup(t, db, "2026-01-01T01:30:00Z", "scan", "--crontab", crontab)
	code := scan.run(t)
	t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if code != 1 {
		t.Errorf("root's scan exited %d, want 1 (nobody's notes refused)", code)
	}
	if want := "it is larger than root reads of another user's notes (64 MiB, all their notes files together)"; !strings.Contains(scan.stderr.String(), want) {
		t.Errorf("root's scan did not refuse nobody's notes past 64 MiB in all (%q)", want)
	}
	if !strings.Contains(scan.stderr.String(), "not replaying the lines of nobody") {
		t.Errorf("root's scan did not say it replays none of nobody's lines meanwhile")
	}
}

// TestRootReadsUsersNotesFilesBounded: root reads at most 64 of another
// user's notes files in all. nobody names its empty notes file again and
// again as a file a process took (NOTES.PID, hard links: nothing of its
// disk): each was opened, checked and read by root's scan, every reader and
// every scrape of a root daemon, none costing the 64 MiB bound a byte
// (60,000 names took each 4.5 s). Past 64 files, the next is refused as a
// file too large is: root replays none of nobody's lines, says so naming
// the file, and exits 1.
func TestRootReadsUsersNotesFilesBounded(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if code := nobodysFire(t, bin, home, db, "2026-01-01T01:00:05Z").run(t); code != 0 {
		t.Fatalf("nobody's fire exited %d", code)
	}
	notes := filepath.Join(filepath.Dir(nobodysNotesDir(t, home)), ".unrecorded.jsonl")
	writeFileOf(t, notes, "", 65534)
	for i := 1; i <= 1000; i++ {
		if err := os.Link(notes, fmt.Sprintf("%s.%d", notes, i)); err != nil {
			t.Fatal(err)
		}
	}
	scan := newCatchup(t, db, "2026-01-01T01:30:00Z", "scan", "--crontab", crontab)
	code := scan.run(t)
	t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if code != 1 {
		t.Errorf("root's scan exited %d, want 1 (nobody's notes refused)", code)
	}
	if want := "it is one of more notes files than root reads of another user's (64, all their notes files together)"; !strings.Contains(scan.stderr.String(), want) {
		t.Errorf("root's scan did not refuse nobody's notes past 64 files (%q)", want)
	}
	if !strings.Contains(scan.stderr.String(), "not replaying the lines of nobody") {
		t.Errorf("root's scan did not say it replays none of nobody's lines meanwhile")
	}
}
