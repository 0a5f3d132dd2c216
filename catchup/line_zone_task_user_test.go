package catchup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// lineZoneLedger is the shared ledger a root scan and nobody's crontab
// lines name (only its name is read: the lines record into this scan's).
const lineZoneLedger = "postgres://zones@127.0.0.1:5432/test"

// nobodysCrontab writes text as a crontab of nobody's in dir, its lines
// recording into the scan's ledger (lineZoneLedger).
func nobodysCrontab(t *testing.T, dir, text string) string {
	t.Helper()
	cron := filepath.Join(dir, "crontab")
	if err := os.WriteFile(cron, []byte("CATCHUP_DB="+lineZoneLedger+"\n"+text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(cron, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	return cron
}

// TestRootScanLineFallbackZoneAsLineUser: a line of another user's crontab
// that names no zone of its own (no --tz, no CRON_TZ) is checked in the
// zone its task is registered in; when that is a file's path, a root scan
// reads it as the line's user, never with root's rights. Two such tasks,
// one whose registered zone is a copy of Asia/Tokyo and one a file that is
// no zone, both where only root may read, are told apart by nothing the
// scan says: each is an unknown zone as nobody. Before, the scan checked
// the line in the file read as root: the Tokyo copy passed the zone and
// was refused for its --max-age, the other was refused as no zone file,
// telling nobody what lies behind a directory of root's.
func TestRootScanLineFallbackZoneAsLineUser(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	top, zone, _ := privateZone(t)
	junk := filepath.Join(filepath.Dir(zone), "junk")
	if err := os.WriteFile(junk, []byte("not a zone file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A --max-age checkLine refuses after the zone: the check's refusal
	// names the first thing it found wrong.
	cron := nobodysCrontab(t, top, "0 * * * * catchup run --task tokyo --max-age 0 -- true\n"+
		"0 * * * * catchup run --task junk --max-age 0 -- true\n")
	f.m.UID, f.m.DB, f.m.Zone = 0, lineZoneLedger, "UTC"
	ctx := context.Background()
	for i, task := range []store.Task{{Name: "tokyo", TZ: zone}, {Name: "junk", TZ: junk}} {
		task.Schedule, task.Replay, task.RegisteredAt = "0 * * * *", "all", f.now.Add(-48*time.Hour)
		task.Source, task.Shell = "crontab:"+cron+":"+[]string{"2", "3"}[i], "/bin/sh"
		if err := f.st.UpsertTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	req := scanRequest()
	req.DryRun = true
	rep, err := Scan(ctx, f.st, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	said := map[string]string{}
	paths := map[string]string{"tokyo": zone, "junk": junk}
	for _, w := range rep.Warnings {
		for name, path := range paths {
			if strings.Contains(w, path) || strings.Contains(w, "task "+name) {
				said[name] += w + "\n"
			}
		}
	}
	for _, ts := range rep.Tasks {
		if _, ok := paths[ts.Task]; ok {
			said[ts.Task] += "scanned: " + strings.Join(ts.Warnings, "; ") + "\n"
		}
	}
	for name, path := range paths {
		said[name] = strings.NewReplacer(path, "PATH", name, "NAME", ":2:", ":N:", ":3:", ":N:").Replace(said[name])
	}
	if said["tokyo"] != said["junk"] {
		t.Errorf("the scan tells the two files apart:\ntokyo: %s\njunk: %s", said["tokyo"], said["junk"])
	}
	if !strings.Contains(said["tokyo"], "permission denied") {
		t.Errorf("tokyo: %q; want its zone unknown as nobody", said["tokyo"])
	}
}

// TestRootScanNewLineZoneReadAsLineUser: a root scan reads the zone file
// another user's new line names (CRON_TZ, --tz) with that user's rights
// when it registers the line, not only when it checks it first: a symlink
// the user re-points, once the check passed, to a copy of Asia/Tokyo
// behind a directory of root's is an unknown zone, the line refused, as
// the user's own fire finds it. Before, the check looked as the user and
// the registration read the file again as root: the line was registered
// in Asia/Tokyo, on a ledger the user reads.
func TestRootScanNewLineZoneReadAsLineUser(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T09:30:00Z")
	top, zone, public := privateZone(t)
	for _, tc := range []struct{ name, line string }{
		{"CRON_TZ", "CRON_TZ=LINK\n0 * * * * catchup run --task NAME -- true\n"},
		{"tz", "0 * * * * catchup run --task NAME --tz LINK -- true\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(top, tc.name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link")
			if err := os.Symlink(public, link); err != nil {
				t.Fatal(err)
			}
			cron := nobodysCrontab(t, dir, strings.NewReplacer("LINK", link, "NAME", tc.name).Replace(tc.line))
			m := f.m
			m.UID, m.DB, m.Zone = 0, lineZoneLedger, "UTC"
			m.asUser = newAccessMemo() // the scan's, which remembers its checks
			entries, _, err := newCrontabs(m).discover([]CrontabSource{{Name: cron, Path: cron}})
			if err != nil || len(entries) != 1 {
				t.Fatalf("discover: %v, %v", entries, err)
			}
			if _, err := newShellReplay(m, entries[0]); err != nil { // the check: nobody reads the public file
				t.Fatalf("the line refused while its zone file is public: %v", err)
			}
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(zone, link); err != nil {
				t.Fatal(err)
			}
			sr, _, err := registerEntry(context.Background(), f.st, m, entries[0], DefaultTolerance, false, "", nil)
			if err == nil || !strings.Contains(err.Error(), "unknown time zone") {
				registered := ""
				if sr != nil {
					registered = sr.task.TZ
				}
				t.Errorf("registered in %q, %v; want the line refused: its zone file is one nobody cannot read", registered, err)
			}
			if task, err := f.st.Task(context.Background(), tc.name); err == nil {
				t.Errorf("task registered in %s; want none", task.TZ)
			}
		})
	}
}

// BenchmarkOtherUsersZonePathLines is a root dry-run scan of another
// user's crontab of 4,000 lines, half naming a zone file that user can
// read (a copy of Asia/Tokyo), half one that does not exist: each line's
// zones are read as that user on a thread of their ids, once per scan for
// lines alike but for their task and command (accessMemo.readLine), not
// once per line (a thread each made this scan 2-3 times slower than
// reading the files as root: 1-1.5 s on a busy machine; 0.4-0.6 s now, as
// before).
func BenchmarkOtherUsersZonePathLines(b *testing.B) {
	f := newRunFixture(b, "2026-03-01T09:30:00Z")
	top, _, public := privateZone(b)
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "0 * * * * catchup run --tz %s --task b%d -- true\n", public, i)
		fmt.Fprintf(&text, "0 * * * * catchup run --tz %s --task t%d -- true\n", filepath.Join(top, "nothere"), i)
	}
	cron := filepath.Join(top, "crontab")
	if err := os.WriteFile(cron, []byte("CATCHUP_DB="+lineZoneLedger+"\n"+text.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.Chown(cron, 65534, 65534); err != nil {
		b.Fatal(err)
	}
	f.m.UID, f.m.DB, f.m.Zone = 0, lineZoneLedger, "UTC"
	req := scanRequest()
	req.DryRun, req.Crontabs = true, []CrontabSource{{Name: cron, Path: cron}}
	for b.Loop() {
		rep, err := Scan(context.Background(), f.st, f.m, req)
		if err != nil || rep.RefusedLines != 2000 || len(rep.Tasks) != 2000 {
			b.Fatalf("scan: %d refused, %d tasks, %v; want 2000 of each", rep.RefusedLines, len(rep.Tasks), err)
		}
	}
}
