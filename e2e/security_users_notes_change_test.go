package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootScanKeepsUsersNotedSlotThroughAChange: nobody's line fires at
// 01:00 while the shared ledger cannot be reached, runs its job (its
// --fail-open) and leaves a note in nobody's lock directory; then nobody
// moves the line to another zone (CRON_TZ=Asia/Kolkata: it fires at half
// past, UTC) before root's scan. The noted fire stands for the slot of the
// schedule it fired under, whoever scans, as when nobody's own scan or
// fire meets the change (missed_noted_fire_then_tz_change): root's scan
// neither records that slot expired (schedule-changed) beside the note,
// nor replays it; once nobody's next fire records the note, it is the
// slot's run, succeeded, and root's next scan and ls --missed find nothing
// missed. The line as cron runs it (its CRON_TZ in the job's environment):
// without --cron (its note names no slot: read under the registration the
// fire read), and with it (its note names its slot); root's scan given
// nobody's crontab, or re-reading the line (a boot scan); its --dry-run
// says the same first.
func TestRootScanKeepsUsersNotedSlotThroughAChange(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	tests := map[string]struct {
		cron  string // the line's --cron, if any
		given bool   // root's scan is given nobody's crontab (else it re-reads the line, as a boot scan)
	}{
		"line without --cron":                      {"", true},
		"line with --cron":                         {"--cron '0 * * * *' ", true},
		"line without --cron, scan re-reads lines": {"", false},
	}
	for name, tc := range tests {
		cron := tc.cron
		t.Run(name, func(t *testing.T) {
			db := pgLedger(t)
			bin, crontab, home := nobodysLine(t, db)
			job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> who.log`
			line := func(zone string) {
				t.Helper()
				text := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
					"CRON_TZ=" + zone + "\n0 * * * * catchup run --task who --fail-open " + cron + "-- sh -c '" + job + "'\n"
				if err := os.WriteFile(crontab, []byte(text), 0o600); err != nil { // still nobody's
					t.Fatal(err)
				}
			}
			zone := "UTC"
			fire := func(db, now string) *catchupProc { // as cron runs the line: its CRON_TZ in the job's environment
				args := []string{"run", "--task", "who", "--fail-open"}
				if cron != "" {
					args = append(args, "--cron", "0 * * * *")
				}
				p := nobodysCatchup(t, bin, home, db, now, append(args, "--", "sh", "-c", job)...)
				p.cmd.Env = append(p.cmd.Env, "CRON_TZ="+zone)
				return p
			}
			line(zone)
			if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
				t.Fatalf("first scan: %s", p.stderr.String())
			}
			if p := fire(refusedRole(db), "2026-01-01T01:00:05Z"); p.run(t) != 0 || !strings.Contains(p.stderr.String(), "unrecorded") {
				t.Fatalf("nobody's 01:00 fire did not run unrecorded: %s", p.stderr.String())
			}
			zone = "Asia/Kolkata"
			line(zone)

			args := []string{"scan", "-v"}
			if tc.given {
				args = append(args, "--crontab", crontab)
			}
			dry := newCatchup(t, db, "2026-01-01T01:20:00Z", append(args, "--dry-run")...)
			if code := dry.run(t); code != 0 || strings.Contains(dry.stdout.String()+dry.stderr.String(), "expired") ||
				strings.Contains(dry.stdout.String(), "Z  would ") {
				t.Errorf("root's scan --dry-run exited %d, want 0 with nothing of who's expired nor replayed: %s%s",
					code, dry.stdout.String(), dry.stderr.String())
			}
			scan := newCatchup(t, db, "2026-01-01T01:20:00Z", args...)
			code := scan.run(t)
			out, stderr := scan.stdout.String(), scan.stderr.String()
			t.Logf("root's scan: exit %d\n%s%s", code, out, stderr)
			if code != 0 || strings.Contains(stderr, "expired") || strings.Contains(out, "replayed 1") {
				t.Errorf("root's scan exited %d, want 0, with nothing of who's expired nor replayed", code)
			}
			if got := readLines(t, filepath.Join(home, "who.log")); len(got) != 1 {
				t.Errorf("who ran for %q, want its 01:00 fire alone: its noted slot is not run again", got)
			}
			if ls := newCatchup(t, db, "2026-01-01T01:25:00Z", "ls", "--missed"); ls.run(t) != 0 {
				t.Errorf("root's ls --missed: want nothing missed: %s%s", ls.stdout.String(), ls.stderr.String())
			}

			// Nobody's next fire (07:00 in Kolkata) records the note.
			if p := fire(db, "2026-01-01T01:30:05Z"); p.run(t) != 0 || !strings.Contains(p.stderr.String(), "recorded 1 fire") {
				t.Fatalf("nobody's 01:30 fire did not record its note: %s", p.stderr.String())
			}
			hist := newCatchup(t, db, "2026-01-01T01:40:00Z", "history", "who", "-o", "json")
			if code := hist.run(t); code != 0 {
				t.Fatalf("history exited %d: %s", code, hist.stderr.String())
			}
			var runs []struct {
				Slot   string `json:"slot"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal([]byte(hist.stdout.String()), &runs); err != nil {
				t.Fatalf("history -o json: %v: %s", err, hist.stdout.String())
			}
			var got []string
			for _, r := range runs {
				got = append(got, r.Slot+" "+r.Status)
			}
			if strings.Join(got, "|") != "2026-01-01T01:00:00Z succeeded|2026-01-01T01:30:00Z succeeded" &&
				strings.Join(got, "|") != "2026-01-01T01:30:00Z succeeded|2026-01-01T01:00:00Z succeeded" {
				t.Errorf("who's history: %q, want 01:00 the noted fire's run, succeeded (never expired), and 01:30's", got)
			}
			again := newCatchup(t, db, "2026-01-01T01:40:00Z", args...)
			if code := again.run(t); code != 0 || !strings.Contains(again.stdout.String(), "who: 0 missed") ||
				strings.Contains(again.stderr.String(), "expired") {
				t.Errorf("root's next scan exited %d, want 0 with nothing of who's missed nor expired: %s%s",
					code, again.stdout.String(), again.stderr.String())
			}
			if ls := newCatchup(t, db, "2026-01-01T01:40:00Z", "ls", "--missed"); ls.run(t) != 0 {
				t.Errorf("root's ls --missed after the note is recorded: want nothing missed: %s%s", ls.stdout.String(), ls.stderr.String())
			}
			if got := readLines(t, filepath.Join(home, "who.log")); len(got) != 2 {
				t.Errorf("who ran for %q, want its 01:00 and 01:30 fires, each once", got)
			}
		})
	}
}
