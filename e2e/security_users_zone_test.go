package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRootScanReadsNoZonePathItsUserCannot: a line of nobody's crontab
// that root's scan replays on a shared ledger names zone files behind a
// directory of root's that nobody cannot enter (--tz, CRON_TZ): a copy
// of a zone file, a file that is no zone, a name that is not there, a
// directory. Root's scan must not read them with root's rights:
// it told, in its warnings, which exist and what they are, and it
// registered the line whose file is a zone (its zone in the ledger nobody
// reads, its slots by that file), where nobody's own fire cannot read it
// (exit 125). Each is refused as nobody's fire refuses it, alike; a zone
// path nobody can read is registered.
func TestRootScanReadsNoZonePathItsUserCannot(t *testing.T) {
	t.Parallel()
	needRoot(t)
	berlin, err := os.ReadFile("/usr/share/zoneinfo/Europe/Berlin")
	if err != nil {
		t.Skip("needs the zone database: ", err)
	}
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin) // traversable by everyone (testBinDir)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	secret := filepath.Join(top, "secret")
	if err := os.Mkdir(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(secret, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"zone": berlin, "hidden": []byte("x\n")} {
		if err := os.WriteFile(filepath.Join(secret, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	crontab := filepath.Join(top, "crontab")
	text := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		"0 * * * * catchup run --task z1 --tz " + secret + "/zone -- true\n" +
		"0 * * * * catchup run --task z2 --tz " + secret + "/hidden -- true\n" +
		"0 * * * * catchup run --task z3 --tz " + secret + "/nothere -- true\n" +
		"0 * * * * catchup run --task z4 --tz " + secret + "/sub -- true\n" +
		"CRON_TZ=:" + secret + "/zone\n" +
		"0 * * * * catchup run --task z5 -- true\n" +
		"CRON_TZ=/usr/share/zoneinfo/Europe/Berlin\n" +
		"0 * * * * catchup run --task readable -- true\n"
	if err := os.WriteFile(crontab, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 65534, 65534); err != nil {
		t.Fatal(err)
	}

	scan := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "-v", "--crontab", crontab)
	code := scan.run(t)
	out, errs := scan.stdout.String(), scan.stderr.String()
	if code != 1 {
		t.Fatalf("scan exited %d, want 1 (lines refused): %s%s", code, out, errs)
	}
	for _, task := range []string{"z1", "z2", "z3", "z4", "z5"} {
		if strings.Contains(out, task+":") {
			t.Errorf("root's scan registered %s, whose zone file nobody cannot read: %s", task, out)
		}
	}
	if !strings.Contains(out, "readable: 0 missed") {
		t.Errorf("the line whose zone file nobody can read is not registered: %s%s", out, errs)
	}
	refused := regexp.MustCompile(`(?m)^catchup: warning: .*crontab:(\d+): .*unknown time zone "[^"]*" \(a zone file's path, as nobody: permission denied\)`)
	if n := len(refused.FindAllString(errs, -1)); n != 5 {
		t.Errorf("%d lines refused as nobody cannot read their zone file, want 5: %s", n, errs)
	}
	for _, told := range []string{"no such file", "not a regular file"} {
		if strings.Contains(errs, told) {
			t.Errorf("root's warnings tell nobody what lies behind a directory it cannot enter (%q): %s", told, errs)
		}
	}
}
