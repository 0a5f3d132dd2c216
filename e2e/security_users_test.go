package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// needRoot skips a test that changes file owners or runs processes as
// other users.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives files to other users and runs as them")
	}
}

// userDir is a fresh directory owned by uid:gid, mode 0700, inside a
// directory every user can traverse.
func userDir(t *testing.T, parent string, name string, uid, gid int) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(d, uid, gid); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReplayAsCrontabUser: root's scan replays a line of nobody's crontab
// as nobody (uid, gid, supplementary groups, LOGNAME, USER, SHELL; HOME as
// the crontab sets it), never as root. The ledger is a PostgreSQL one that
// both users record into, named by the crontab itself.
func TestReplayAsCrontabUser(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	needRoot(t)
	db := pgLedger(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin) // traversable by everyone (testBinDir)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	crontab := filepath.Join(top, "crontab")
	line := "CATCHUP_DB=" + db + "\n" + asCatchup + "=1\nPATH=" + bin + ":/usr/bin:/bin\nHOME=" + home + "\n" +
		`0 * * * * catchup run --task who -- sh -c 'echo "$(id -u) $(id -g) $(id -G) $HOME $LOGNAME $USER $SHELL" >> who'` + "\n"
	if err := os.WriteFile(crontab, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 65534, 65534); err != nil {
		t.Fatal(err)
	}

	first := newCatchup(t, db, "2026-01-01T00:30:00Z", "scan", "-v", "--crontab", crontab)
	if code := first.run(t); code != 0 {
		t.Fatalf("first scan exited %d: %s", code, first.stderr.String())
	}
	scan := newCatchup(t, db, "2026-01-01T02:30:00Z", "scan", "-v", "--crontab", crontab)
	if code := scan.run(t); code != 0 {
		t.Fatalf("scan exited %d: %s%s", code, scan.stdout.String(), scan.stderr.String())
	}
	if !strings.Contains(scan.stdout.String(), "who: 2 missed, replayed 2") {
		t.Errorf("scan report: %s", scan.stdout.String())
	}
	got := readLines(t, filepath.Join(home, "who"))
	want := "65534 65534 65534 " + home + " nobody nobody /bin/sh"
	if len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("the replays ran as %q, want twice %q", got, want)
	}
}

// TestNonRootScanReplaysOwnLinesOnly: a scan run by nobody refuses a
// crontab that belongs to another user (daemon): its lines are daemon's,
// and nobody's scan replays only nobody's.
func TestNonRootScanReplaysOwnLinesOnly(t *testing.T) {
	needRoot(t)
	bin := testBinDir(t)
	top := filepath.Dir(bin)
	home := userDir(t, top, "nobody-home", 65534, 65534)
	crontab := filepath.Join(top, "daemon.crontab")
	line := "0 * * * * catchup run --task d -- touch " + filepath.Join(home, "ran") + "\n"
	if err := os.WriteFile(crontab, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(crontab, 1, 1); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(home, "state", "catchup.db")
	asNobody := func(p *catchupProc) *catchupProc {
		p.cmd.Path, p.cmd.Args[0] = filepath.Join(bin, "catchup"), filepath.Join(bin, "catchup")
		p.cmd.Dir = home
		p.cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
		p.cmd.Env = append(p.cmd.Env, "HOME="+home, "PATH="+bin+":/usr/bin:/bin", "CATCHUP_STATE_DIR="+filepath.Join(home, "state"))
		return p
	}
	for _, now := range []string{"2026-01-01T00:30:00Z", "2026-01-01T02:30:00Z"} {
		p := asNobody(newCatchup(t, db, now, "scan", "-v", "--crontab", crontab))
		code := p.run(t)
		if code != 1 || !strings.Contains(p.stderr.String(), "belongs to daemon") {
			t.Errorf("scan as nobody at %s exited %d, want 1 with a warning that the crontab belongs to daemon: %s",
				now, code, p.stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(home, "ran")); err == nil {
		t.Error("nobody's scan ran a line of daemon's crontab")
	}
}
