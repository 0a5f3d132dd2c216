package e2e

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pgDSNWithPassword is a schema of its own on the test server, spelled with
// a password. The server trusts loopback connections, so the password is
// never checked: it is only a marker that must not leak.
func pgDSNWithPassword(t *testing.T, password string) string {
	t.Helper()
	u, err := url.Parse(pgLedger(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// noSecret fails when file holds secret, quoting the lines that do.
func noSecret(t *testing.T, file, secret string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%s was not written: %v", filepath.Base(file), err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, secret) {
			t.Errorf("%s holds the secret: %s", filepath.Base(file), line)
		}
	}
}

// TestJobSeesNoLedgerPassword: a PostgreSQL password in CATCHUP_DB reaches
// neither the job, nor --notify-cmd, nor scan's --notify-cmd, nor a replayed
// job; the job's `catchup progress` still records its progress.
func TestJobSeesNoLedgerPassword(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	const secret = "s3cr3t-ledger-pw"
	db := pgDSNWithPassword(t, secret)
	dir := t.TempDir()
	env := func(name string) string { return filepath.Join(dir, name) }

	job := "env > " + env("job.env") + "; catchup progress 50 --note halfway; exit 3"
	p := newCatchup(t, db, "2026-11-20T02:00:05Z", "run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC",
		"--notify-cmd", "env > "+env("notify.env"), "--", "sh", "-c", job)
	p.cmd.Env = append(p.cmd.Env, "PATH="+testBinDir(t)+":"+os.Getenv("PATH"))
	if code := p.run(t); code != 3 {
		t.Fatalf("run exited %d, want 3: %s", code, p.stderr.String())
	}
	noSecret(t, env("job.env"), secret)
	noSecret(t, env("notify.env"), secret)
	if strings.Contains(p.stderr.String(), secret) {
		t.Errorf("stderr holds the password: %s", p.stderr.String())
	}
	show := newCatchup(t, db, "", "show", "1", "-o", "json")
	if code := show.run(t); code != 0 || !strings.Contains(show.stdout.String(), `"checkpoint": "halfway"`) {
		t.Errorf("the job's catchup progress was not recorded (exit %d): %s %s", code, show.stdout.String(), show.stderr.String())
	}

	scan := newCatchup(t, db, "2026-11-22T09:00:00Z", "scan", "-v", "--notify-cmd", "env > "+env("scan-notify.env"))
	scan.cmd.Env = append(scan.cmd.Env, "PATH="+testBinDir(t)+":"+os.Getenv("PATH"))
	os.Remove(env("job.env"))
	if code := scan.run(t); code != 1 {
		t.Fatalf("scan exited %d, want 1 (the replays fail): %s", code, scan.stderr.String())
	}
	noSecret(t, env("job.env"), secret) // written again by the replays
	noSecret(t, env("scan-notify.env"), secret)
}

// TestJobSeesNoRawLedgerPassword: a password spelt raw, as the driver
// (libpq's rules) reads it, a # or ? in it, stays out of the job's and the
// notify command's CATCHUP_DB: net/url read "u:1234#pw@" as a port and a
// fragment and gave the job the whole URL, password and all.
func TestJobSeesNoRawLedgerPassword(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	const secret = "s3cr3t-ledger-pw"
	for name, password := range map[string]string{
		"# in the user info": "1234#" + secret,
		"? in the user info": "1234?" + secret,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u, err := url.Parse(pgLedger(t))
			if err != nil {
				t.Fatal(err)
			}
			user := u.User.Username() + "@"
			db := strings.Replace(u.String(), "://"+user, "://"+u.User.Username()+":"+password+"@", 1)
			dir := t.TempDir()
			env := func(name string) string { return filepath.Join(dir, name) }
			p := newCatchup(t, db, "2026-11-20T02:00:05Z", "run", "--task", "t", "--cron", "0 2 * * *", "--tz", "UTC",
				"--notify-cmd", "env > "+env("notify.env"), "--", "sh", "-c", "env > "+env("job.env")+"; exit 3")
			if code := p.run(t); code != 3 {
				t.Fatalf("run exited %d, want 3 (the job's, recorded): %s", code, p.stderr.String())
			}
			noSecret(t, env("job.env"), secret)
			noSecret(t, env("notify.env"), secret)
			if b, _ := os.ReadFile(env("job.env")); !strings.Contains(string(b), "\nCATCHUP_DB=postgres://"+user) {
				t.Errorf("the job's CATCHUP_DB is not the ledger's URL without its password")
			}
		})
	}
}

// TestPingFromFileOrEnv: the ping URL, a secret of its own (anyone holding
// it can report the job), can come from --ping-file or CATCHUP_PING_URL so
// that it stays out of ps; the job does not get it.
func TestPingFromFileOrEnv(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	var log pingLog
	srv := httptest.NewServer(log.handler(0, 200))
	defer srv.Close()
	dir, db := tempLedger(t)
	urlFile := filepath.Join(dir, "ping-url")
	if err := os.WriteFile(urlFile, []byte(srv.URL+"/from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := newCatchup(t, db, "", "run", "--task", "f", "--ping-file", urlFile, "--", "true")
	if code := p.run(t); code != 0 {
		t.Fatalf("run --ping-file exited %d: %s", code, p.stderr.String())
	}
	p = newCatchup(t, db, "", "run", "--task", "e", "--", "sh", "-c", "env > "+filepath.Join(dir, "job.env"))
	p.cmd.Env = append(p.cmd.Env, "CATCHUP_PING_URL="+srv.URL+"/from-env")
	if code := p.run(t); code != 0 {
		t.Fatalf("run with CATCHUP_PING_URL exited %d: %s", code, p.stderr.String())
	}
	var paths []string
	for _, h := range log.list() {
		paths = append(paths, strings.Fields(h)[1])
	}
	if got := strings.Join(paths, " "); got != "/from-file/start /from-file /from-env/start /from-env" {
		t.Errorf("pings: %s", got)
	}
	noSecret(t, filepath.Join(dir, "job.env"), "/from-env")

	both := newCatchup(t, db, "", "run", "--task", "b", "--ping", srv.URL, "--ping-file", urlFile, "--", "true")
	if code := both.run(t); code != 125 {
		t.Errorf("--ping with --ping-file exited %d, want 125 (usage)", code)
	}
}

// testBinDir is a directory every user can read holding `catchup` (this
// test binary, which runs as catchup with CATCHUP_E2E_AS_CATCHUP=1).
func testBinDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p := dir; p != "/" && p != "."; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(p, fi.Mode().Perm()|0o005)
		}
	}
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "catchup"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
