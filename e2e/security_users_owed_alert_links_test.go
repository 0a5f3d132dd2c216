package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUsersOwedAlertsReadBounded: nobody fills its lock directory with
// 20,000 names of alerts owed by a fire long gone, each a hard link to one
// file of nearly 1 MiB (a few MB of nobody's disk in all) that is no alert
// root's scan sends (its task is root's). Root's scan read each name whole,
// 20 GB of JSON at every scan, since a file it does not send never counted
// against the 4 alerts of a user's it pays per scan. It now reads no file
// with more than one link (a fire writes its alert once, under one name),
// and looks at no more than 64 of a user's owed alerts per scan, the rest
// said and left for the next scan. So with names of a taker still alive
// (pid 1), whose /proc files root read for each: 60,000 took 6 s.
func TestUsersOwedAlertsReadBounded(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	tests := map[string]int{ // the pid of the fire that owed them
		"a fire long gone":     99999999, // no such process
		"a fire still running": 1,        // its alerts are its own to send
	}
	for name, pid := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := pgLedger(t)
			bin, crontab, home := nobodysLine(t, db)
			if p := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "--crontab", crontab); p.run(t) != 0 {
				t.Fatalf("first scan: %s", p.stderr.String())
			}
			if code := nobodysFire(t, bin, home, db, "2026-01-01T01:00:05Z").run(t); code != 0 {
				t.Fatalf("nobody's fire exited %d", code)
			}
			dir := filepath.Dir(nobodysNotesDir(t, home))
			body := fmt.Sprintf(`{"task":"mine","cmd":"true","host":"testhost","pid":%d,"pad":"%s",`+
				`"run":{"id":1,"slot":"2026-01-01T01:00:00Z","trigger":"cron","attempt":1,"status":"failed","exit_code":1},"slots":null,"causes":null}`,
				pid, strings.Repeat("a", 1<<20-400))
			first := filepath.Join(dir, fmt.Sprintf(".alert-owed.%d.0.json", pid))
			writeFileOf(t, first, body, 65534)
			const links = 20000
			for i := 1; i < links; i++ {
				if err := os.Link(first, filepath.Join(dir, fmt.Sprintf(".alert-owed.%d.%d.json", pid, i))); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			scan := newCatchup(t, db, "2026-01-01T01:30:00Z", "scan", "--crontab", crontab)
			code := scan.run(t)
			took := time.Since(start)
			t.Logf("root's scan: exit %d in %s\n%s%s", code, took, scan.stdout.String(), scan.stderr.String())
			if took > time.Minute {
				t.Errorf("root's scan took %s over nobody's %d names of one owed alert of 1 MiB: it looked at them all", took, links)
			}
			want := fmt.Sprintf("%d more alerts owed by the fires of nobody are left for the next scan (at most 64 of a user's are looked at per scan)", links-64)
			if !strings.Contains(scan.stderr.String(), want) {
				t.Errorf("root's scan did not say it left nobody's alerts for the next scan (%q)", want)
			}
		})
	}
}
