package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootScanReadsUsersNotes: two fires of nobody's line cannot reach
// the shared ledger, and leave notes in nobody's lock directory: the 01:00
// one ran (--fail-open), the 02:00 one did not (a shared ledger's default).
// Root's boot scan, which replays nobody's lines as nobody, counts those
// notes for nobody's task: it does not run 01:00 a second time, and
// replays 02:00 once, missed because the ledger could not be reached. It
// leaves the notes to nobody's next fire, which records them; then root's
// scan finds nothing missed, and every slot ran once.
func TestRootScanReadsUsersNotes(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	nobodysTwoFires(t, db, bin, crontab, home)

	scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "-v", "--crontab", crontab)
	code := scan.run(t)
	out := scan.stdout.String()
	t.Logf("root's scan: exit %d\n%s%s", code, out, scan.stderr.String())
	if code != 0 || !strings.Contains(out, "who: 1 missed, replayed 1") || !strings.Contains(out, "causes: ledger-unreachable 1") {
		t.Errorf("root's scan exited %d, want 0, with 1 slot missed (ledger-unreachable) and replayed: %s", code, out)
	}
	want := []string{"2026-01-01T01:00:00Z schedule", "2026-01-01T02:00:00Z replay"}
	if got := readLines(t, filepath.Join(home, "who.log")); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("who ran for %q, want %q (each slot once)", got, want)
	}

	if p := nobodysFire(t, bin, home, db, "2026-01-01T03:00:05Z"); p.run(t) != 0 {
		t.Fatalf("nobody's 03:00 fire: %s", p.stderr.String())
	}
	again := newCatchup(t, db, "2026-01-01T03:30:00Z", "scan", "-v", "--crontab", crontab)
	if code := again.run(t); code != 0 || !strings.Contains(again.stdout.String(), "who: 0 missed") {
		t.Errorf("root's next scan exited %d, want 0 with nothing missed: %s%s", code, again.stdout.String(), again.stderr.String())
	}
	want = append(want, "2026-01-01T03:00:00Z schedule")
	if got := readLines(t, filepath.Join(home, "who.log")); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("who ran for %q, want %q (each slot once)", got, want)
	}
}

// TestRootScanRefusesUsersUntrustedNotes: nobody's notes of unrecorded
// fires are trusted only as a file of nobody's alone. One that others can
// write, or a symlink nobody planted in its place (here to a file of
// root's, which root's scan must neither read as nobody's nor take), may
// stand for any slot of nobody's: root's scan replays nothing of nobody's
// meanwhile, says so in one line naming the file and the fix, and exits 1;
// root's own line is still replayed, and the file linked to is left as it
// was. Root's backfill of nobody's task refuses to run anything (exit 2).
// Root's readers, before that scan, say the same file is refused, and that
// the slots they show missed may have run.
func TestRootScanRefusesUsersUntrustedNotes(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	tests := map[string]func(t *testing.T, notes string) (fix string){
		"writable by others": func(t *testing.T, notes string) string {
			if err := os.Chmod(notes, 0o666); err != nil {
				t.Fatal(err)
			}
			return "chmod 600 " + notes
		},
		"symlink to a file of root's": func(t *testing.T, notes string) string {
			target := filepath.Join(t.TempDir(), "roots-notes")
			if err := os.WriteFile(target, []byte("root's\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if b, err := os.ReadFile(target); err != nil || string(b) != "root's\n" {
					t.Errorf("the file of root's nobody linked to was changed or taken: %q, %v", b, err)
				}
			})
			if err := os.Remove(notes); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, notes); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(notes, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return "rm " + notes
		},
		// Larger than any root reads of another user's (64 MiB): sparse,
		// a line every 512 KiB, it costs nobody 520 KiB of disk. Read
		// whole, such a file of 4 GiB (32 MiB of disk) took root's scan,
		// and every scrape of a root daemon's /metrics, 16 s.
		"larger than root reads": func(t *testing.T, notes string) string {
			f, err := os.OpenFile(notes, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for off := int64(1 << 20); off <= 65<<20; off += 512 << 10 {
				if _, err := f.WriteAt([]byte("\n"), off); err != nil {
					t.Fatal(err)
				}
			}
			return "rm " + notes
		},
		// Each under 64 MiB, together over it: two of the names a process
		// takes the notes file under (NOTES.PID), 40 MiB each, sparse.
		"larger than root reads in two files": func(t *testing.T, notes string) string {
			for _, name := range []string{notes + ".1", notes + ".2"} {
				f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				for off := int64(0); off < 40<<20; off += 512 << 10 {
					if _, err := f.WriteAt([]byte("\n"), off); err != nil {
						t.Fatal(err)
					}
				}
				f.Close()
				if err := os.Chown(name, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			return "rm " + notes // .2, the one past 64 MiB in all
		},
	}
	for name, plant := range tests {
		t.Run(name, func(t *testing.T) {
			db := pgLedger(t)
			bin, crontab, home := nobodysLine(t, db)
			mine := filepath.Join(t.TempDir(), "mine.log")
			roots := filepath.Join(t.TempDir(), "root.crontab")
			if err := os.WriteFile(roots, []byte(asCatchup+"=1\nPATH="+bin+":/usr/bin:/bin\nCRON_TZ=UTC\n0 * * * * catchup run --task mine --cron '0 * * * *' -- sh -c 'echo \"$CATCHUP_SLOT\" >> "+mine+"'\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab, "--crontab", roots); p.run(t) != 0 {
				t.Fatalf("first scan: %s", p.stderr.String())
			}
			if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 {
				t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
			}
			found := nobodysNotes(t, home)
			fix := plant(t, found)

			// Root's readers say so too, naming the file and the fix: the
			// slots they show missed may have run.
			for _, args := range [][]string{{"ls", "--missed"}, {"explain", "who", "2026-01-01T01:00:00Z"}, {"metrics"}} {
				r := newCatchup(t, db, "2026-01-01T02:20:00Z", args...)
				r.run(t)
				if stderr := r.stderr.String(); !strings.Contains(stderr, "not counting the notes of unrecorded fires of nobody (who)") ||
					!strings.Contains(stderr, found) || !strings.Contains(stderr, fix) || !strings.Contains(stderr, "may have run") {
					t.Errorf("root's %s: want a warning naming %s and the fix %q: %s", strings.Join(args, " "), found, fix, stderr)
				}
			}

			scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "-v", "--crontab", crontab, "--crontab", roots)
			code := scan.run(t)
			stderr := scan.stderr.String()
			t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), stderr)
			if code != 1 || !strings.Contains(stderr, found) || !strings.Contains(stderr, fix) {
				t.Errorf("root's scan exited %d, want 1, naming %s and the fix %q", code, found, fix)
			}
			if got := readLines(t, filepath.Join(home, "who.log")); len(got) != 1 {
				t.Errorf("who ran for %q, want its 01:00 fire alone: nothing replayed while its notes are refused", got)
			}
			if got := readLines(t, mine); len(got) != 2 {
				t.Errorf("root's own task ran for %q, want its 01:00 and 02:00 replayed", got)
			}
			bf := newCatchup(t, db, "2026-01-01T02:40:00Z", "backfill", "--task", "who", "--from", "2026-01-01T01:00:00Z", "--to", "2026-01-01T02:00:00Z")
			if code := bf.run(t); code != 2 || !strings.Contains(bf.stderr.String(), fix) {
				t.Errorf("root's backfill of who exited %d, want 2 naming the fix %q: %s", code, fix, bf.stderr.String())
			}
			if got := readLines(t, filepath.Join(home, "who.log")); len(got) != 1 {
				t.Errorf("who ran for %q, want its 01:00 fire alone: nothing backfilled while its notes are refused", got)
			}
		})
	}
}

// TestRootScanTrustsUsersNotesForTheirTasksOnly: a note in nobody's notes
// file (nobody's own, mode 0600) counts for nobody's tasks alone. One that
// nobody wrote there saying that root's task ran at 01:00 settles nothing:
// root's scan replays root's 01:00 and 02:00, and honours nobody's own
// note (its 01:00 ran unrecorded, not run again).
func TestRootScanTrustsUsersNotesForTheirTasksOnly(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	mine := filepath.Join(t.TempDir(), "mine.log")
	roots := filepath.Join(t.TempDir(), "root.crontab")
	if err := os.WriteFile(roots, []byte(asCatchup+"=1\nPATH="+bin+":/usr/bin:/bin\nCRON_TZ=UTC\n"+
		"0 * * * * catchup run --task mine --cron '0 * * * *' -- sh -c 'echo \"$CATCHUP_SLOT\" >> "+mine+"'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab, "--crontab", roots); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 {
		t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
	}
	found := nobodysNotes(t, home)
	forged := `{"task":"mine","slot":"2026-01-01T01:00:00Z","trigger":"schedule","host":"testhost","pid":1,` +
		`"started_at":"2026-01-01T01:00:01Z","ended_at":"2026-01-01T01:00:02Z","ran":true,"status":"succeeded","exit_code":0,"error":"forged"}` + "\n"
	f, err := os.OpenFile(found, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(forged); err != nil {
		t.Fatal(err)
	}
	f.Close()

	scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "-v", "--crontab", crontab, "--crontab", roots)
	code := scan.run(t)
	t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), scan.stderr.String())
	if code != 0 {
		t.Errorf("root's scan exited %d, want 0", code)
	}
	if got, want := readLines(t, mine), []string{"2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("root's task ran for %q, want %q: a note of nobody's settled a slot of root's", got, want)
	}
	if got, want := readLines(t, filepath.Join(home, "who.log")), []string{"2026-01-01T01:00:00Z schedule", "2026-01-01T02:00:00Z replay"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("who ran for %q, want %q (each slot once)", got, want)
	}
}

// TestRootBackfillReadsUsersNotes: root's backfill of a task of nobody's
// line (run through the line, as nobody) counts nobody's notes as root's
// scan does: a slot whose fire ran unrecorded, noted in nobody's notes
// alone, is done, and does not run a second time; one whose fire did not
// run is run once.
func TestRootBackfillReadsUsersNotes(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	nobodysTwoFires(t, db, bin, crontab, home)
	bf := newCatchup(t, db, "2026-01-01T02:30:00Z", "backfill", "--task", "who", "--from", "2026-01-01T01:00:00Z", "--to", "2026-01-01T02:00:00Z")
	code := bf.run(t)
	t.Logf("root's backfill: exit %d\n%s%s", code, bf.stdout.String(), bf.stderr.String())
	if code != 0 {
		t.Errorf("root's backfill exited %d, want 0", code)
	}
	want := []string{"2026-01-01T01:00:00Z schedule", "2026-01-01T02:00:00Z backfill"}
	if got := readLines(t, filepath.Join(home, "who.log")); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("who ran for %q, want %q (each slot once)", got, want)
	}
}
