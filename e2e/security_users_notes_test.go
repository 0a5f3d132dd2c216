package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// nobodysLine is a crontab of nobody's (owned by nobody, in a directory
// every user can traverse) with one line, task who, recording into the
// PostgreSQL ledger db, its job appending its slot and trigger to
// HOME/who.log; it returns the crontab and nobody's home.
func nobodysLine(t *testing.T, db string) (bin, crontab, home string) {
	t.Helper()
	bin = testBinDir(t)
	top := filepath.Dir(bin) // traversable by everyone (testBinDir)
	home = userDir(t, top, "nobody-home", 65534, 65534)
	crontab = filepath.Join(top, "crontab")
	line := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		`0 * * * * catchup run --task who -- sh -c 'echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> who.log'` + "\n"
	if err := os.WriteFile(crontab, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	return bin, crontab, home
}

// nobodysFire is the fire cron makes of nobody's line at now, as nobody,
// with cron's environment (no CATCHUP_STATE_DIR nor CATCHUP_NOTE_DIR: its
// notes go where any fire of nobody's puts them), into ledger db; flags go
// before the command.
func nobodysFire(t *testing.T, bin, home, db, now string, flags ...string) *catchupProc {
	t.Helper()
	args := append(append([]string{"run", "--task", "who", "--cron", "0 * * * *"}, flags...),
		"--", "sh", "-c", `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> who.log`)
	return nobodysCatchup(t, bin, home, db, now, args...)
}

// nobodysCatchup is `catchup args...` run by nobody, in nobody's home, with
// cron's environment (as nobodysFire), on ledger db.
func nobodysCatchup(t *testing.T, bin, home, db, now string, args ...string) *catchupProc {
	t.Helper()
	p := newCatchup(t, db, now, args...)
	p.cmd.Path, p.cmd.Args[0] = filepath.Join(bin, "catchup"), filepath.Join(bin, "catchup")
	p.cmd.Dir = home
	p.cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	var env []string
	for _, kv := range p.cmd.Env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "CATCHUP_STATE_DIR" && k != "CATCHUP_NOTE_DIR" && k != "PATH" {
			env = append(env, kv)
		}
	}
	p.cmd.Env = append(env, "HOME="+home, "PATH="+bin+":/usr/bin:/bin")
	return p
}

// refusedRole is ledger db under a role the server refuses: the fire
// cannot reach it, and keeps its note in the lock directory of db.
func refusedRole(db string) string {
	return regexp.MustCompile(`^postgres://[^@]*@`).ReplaceAllString(db, "postgres://nosuchrole@")
}

// TestRootScanReadsUsersNotes: two fires of nobody's line cannot reach
// the shared ledger, and leave notes in nobody's lock directory: the 01:00
// one ran (--fail-open), the 02:00 one did not (a shared ledger's default).
// Root's boot scan, which replays nobody's lines as nobody, counts those
// notes for nobody's task: it does not run 01:00 a second time, and
// replays 02:00 once, missed because the ledger could not be reached. It
// leaves the notes to nobody's next fire, which records them; then root's
// scan finds nothing missed, and every slot ran once.
func TestRootScanReadsUsersNotes(t *testing.T) {
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 ||
		!strings.Contains(p.stderr.String(), "unrecorded") {
		t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T02:00:05Z"); p.run(t) != 75 {
		t.Fatalf("nobody's 02:00 fire was not refused: %s", p.stderr.String())
	}

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
			found, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*", ".unrecorded.jsonl"))
			if len(found) != 1 {
				t.Fatalf("nobody's notes of unrecorded fires: found %q, want one file", found)
			}
			fix := plant(t, found[0])

			// Root's readers say so too, naming the file and the fix: the
			// slots they show missed may have run.
			for _, args := range [][]string{{"ls", "--missed"}, {"explain", "who", "2026-01-01T01:00:00Z"}, {"metrics"}} {
				r := newCatchup(t, db, "2026-01-01T02:20:00Z", args...)
				r.run(t)
				if stderr := r.stderr.String(); !strings.Contains(stderr, "not counting the notes of unrecorded fires of nobody (who)") ||
					!strings.Contains(stderr, found[0]) || !strings.Contains(stderr, fix) || !strings.Contains(stderr, "may have run") {
					t.Errorf("root's %s: want a warning naming %s and the fix %q: %s", strings.Join(args, " "), found[0], fix, stderr)
				}
			}

			scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "-v", "--crontab", crontab, "--crontab", roots)
			code := scan.run(t)
			stderr := scan.stderr.String()
			t.Logf("root's scan: exit %d\n%s%s", code, scan.stdout.String(), stderr)
			if code != 1 || !strings.Contains(stderr, found[0]) || !strings.Contains(stderr, fix) {
				t.Errorf("root's scan exited %d, want 1, naming %s and the fix %q", code, found[0], fix)
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
	found, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*", ".unrecorded.jsonl"))
	if len(found) != 1 {
		t.Fatalf("nobody's notes of unrecorded fires: found %q, want one file", found)
	}
	forged := `{"task":"mine","slot":"2026-01-01T01:00:00Z","trigger":"schedule","host":"testhost","pid":1,` +
		`"started_at":"2026-01-01T01:00:01Z","ended_at":"2026-01-01T01:00:02Z","ran":true,"status":"succeeded","exit_code":0,"error":"forged"}` + "\n"
	f, err := os.OpenFile(found[0], os.O_WRONLY|os.O_APPEND, 0)
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
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 {
		t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T02:00:05Z"); p.run(t) != 75 {
		t.Fatalf("nobody's 02:00 fire was not refused: %s", p.stderr.String())
	}
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

// TestRootReadersReadUsersNotes: before root's scan replays nobody's line,
// root's readers tell what that scan will do, counting nobody's notes of
// unrecorded fires as it does (S7d: every reader gives the same cause).
// The 01:00 fire ran unrecorded (noted in nobody's notes alone): it is not
// missed; the 02:00 fire did not run: missed, ledger-unreachable (before,
// both were missed, not-fired). Nothing is taken from nobody's notes.
func TestRootReadersReadUsersNotes(t *testing.T) {
	needRoot(t)
	db := pgLedger(t)
	bin, crontab, home := nobodysLine(t, db)
	if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
		t.Fatalf("first scan: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T01:00:05Z", "--fail-open"); p.run(t) != 0 {
		t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
	}
	if p := nobodysFire(t, bin, home, refusedRole(db), "2026-01-01T02:00:05Z"); p.run(t) != 75 {
		t.Fatalf("nobody's 02:00 fire was not refused: %s", p.stderr.String())
	}
	notes, _ := filepath.Glob(filepath.Join(home, ".local", "state", "catchup", "locks", "*", ".unrecorded.jsonl"))
	if len(notes) != 1 {
		t.Fatalf("nobody's notes of unrecorded fires: found %q, want one file", notes)
	}
	before, err := os.ReadFile(notes[0])
	if err != nil {
		t.Fatal(err)
	}
	const now = "2026-01-01T02:30:00Z"

	ls := newCatchup(t, db, now, "ls", "--missed", "-o", "json")
	ls.run(t)
	var rows []struct {
		Task         string   `json:"task"`
		MissedSlots  []string `json:"missed_slots"`
		MissedCauses []string `json:"missed_causes"`
	}
	if err := json.Unmarshal([]byte(ls.stdout.String()), &rows); err != nil {
		t.Fatalf("ls --missed -o json: %v: %s%s", err, ls.stdout.String(), ls.stderr.String())
	}
	if len(rows) != 1 || rows[0].Task != "who" || strings.Join(rows[0].MissedSlots, ",") != "2026-01-01T02:00:00Z" ||
		strings.Join(rows[0].MissedCauses, ",") != "ledger-unreachable" {
		t.Errorf("ls --missed -o json: %+v, want who missing 02:00 alone, ledger-unreachable", rows)
	}

	ran := newCatchup(t, db, now, "explain", "who", "2026-01-01T01:00:00Z")
	if code := ran.run(t); code != 0 || strings.Contains(ran.stdout.String(), "missed") || !strings.Contains(ran.stdout.String(), "unrecorded") {
		t.Errorf("explain who 01:00 exited %d, want 0 telling a run unrecorded, not missed: %s%s", code, ran.stdout.String(), ran.stderr.String())
	}
	refused := newCatchup(t, db, now, "explain", "who", "2026-01-01T02:00:00Z")
	if code := refused.run(t); code != 0 || !strings.Contains(refused.stdout.String(), "ledger-unreachable") {
		t.Errorf("explain who 02:00 exited %d, want 0 with the cause ledger-unreachable: %s%s", code, refused.stdout.String(), refused.stderr.String())
	}

	metrics := newCatchup(t, db, now, "metrics")
	metrics.run(t)
	if out := metrics.stdout.String(); !strings.Contains(out, `catchup_missed_slots{cause="ledger-unreachable",task="who"} 1`) ||
		!strings.Contains(out, `catchup_missed_slots{cause="not-fired",task="who"} 0`) {
		t.Errorf("metrics: want who's one missed slot ledger-unreachable: %s", out)
	}

	cal := newCatchup(t, db, now, "calendar", "who", "--days", "1", "-o", "json")
	cal.run(t)
	if out := cal.stdout.String(); !regexp.MustCompile(`"2026-01-01T01:00:00Z",\s*"state":\s*"ran"`).MatchString(out) {
		t.Errorf("calendar: want 01:00 ran: %s%s", out, cal.stderr.String())
	}

	for _, args := range [][]string{{"scan", "--dry-run"}, {"scan", "--dry-run", "--crontab", crontab}} {
		dry := newCatchup(t, db, now, args...)
		code := dry.run(t)
		out := dry.stdout.String()
		if code != 0 || !strings.Contains(out, "2026-01-01T02:00:00Z  would replay  ledger-unreachable") || strings.Contains(out, "2026-01-01T01:00:00Z") {
			t.Errorf("%s exited %d, want 0 replaying 02:00 alone, ledger-unreachable: %s%s", strings.Join(args, " "), code, out, dry.stderr.String())
		}
	}
	if after, err := os.ReadFile(notes[0]); err != nil || string(after) != string(before) {
		t.Errorf("root's readers changed or took nobody's notes: %v", err)
	}
	if got := readLines(t, filepath.Join(home, "who.log")); len(got) != 1 {
		t.Errorf("who ran for %q, want its 01:00 fire alone: readers run nothing", got)
	}
}
