package e2e

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// pgProxy stands between catchup and the real PostgreSQL server, so that a
// test can take the ledger away (refuse and cut every connection) and bring
// it back on the same address, without stopping the server other tests use.
type pgProxy struct {
	t      *testing.T
	addr   string // 127.0.0.1:port, stable across Down/Up
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newPGProxy(t *testing.T, dsn string) (*pgProxy, string) {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{t: t, target: u.Host}
	p.Up()
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.Down)
	u.Host = p.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	return p, u.String()
}

// Up listens (again) and forwards every connection to the server.
func (p *pgProxy) Up() {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	waitFor(p.t, "the proxy's port "+addr+" to be free again", func() bool {
		ln, err = net.Listen("tcp", addr)
		return err == nil
	})
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

// Down refuses new connections and cuts the open ones: the ledger is gone.
func (p *pgProxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestLedgerDownAtFireTime: with the shared ledger unreachable, the command
// does not run (a claim-less run could run on every host), catchup exits 75
// and says so; --fail-open runs it; once the ledger is back, scan replays
// the slot.
func TestLedgerDownAtFireTime(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	proxy, viaProxy := newPGProxy(t, db)
	h := fleetHost(t, viaProxy, "host-a")
	log := filepath.Join(h.dir, "ran.log")
	job := `echo "$CATCHUP_SLOT $CATCHUP_TRIGGER" >> ` + log
	if code := h.catchup("2026-11-19T02:00:05Z", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC",
		"--", "sh", "-c", job).run(t); code != 0 {
		t.Fatal("first fire failed")
	}
	proxy.Down()
	p := h.catchup("2026-11-20T02:00:05Z", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC", "--", "sh", "-c", job)
	if code := p.run(t); code != 75 {
		t.Fatalf("fire with the ledger down exited %d, want 75: %s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "unreachable: not running settle") || strings.Contains(p.stderr.String(), "@") {
		t.Errorf("stderr %q: want one line saying why, without credentials", p.stderr.String())
	}
	open := h.catchup("2026-11-20T02:00:05Z", "run", "--fail-open", "--task", "other", "--", "sh", "-c", "echo failopen >> "+log)
	if code := open.run(t); code != 0 {
		t.Fatalf("--fail-open exited %d: %s", code, open.stderr.String())
	}
	proxy.Up()
	scan := h.catchup("2026-11-20T03:00:00Z", "scan", "-v")
	if code := scan.run(t); code != 0 || !strings.Contains(scan.stdout.String(), "settle: 1 missed, replayed 1") {
		t.Fatalf("scan after the outage: exit %d: %s %s", code, scan.stdout.String(), scan.stderr.String())
	}
	want := []string{"2026-11-19T02:00:00Z schedule", "failopen", "2026-11-20T02:00:00Z replay"}
	if got := readLines(t, log); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("runs %q, want %q", got, want)
	}
}

// TestLedgerLostMidRun: the ledger goes away while the command runs. The
// command is not killed; catchup retries and records the outcome once the
// ledger is back, and exits with the command's status.
func TestLedgerLostMidRun(t *testing.T) { // serial: its 1 s lease is the machine's load's to break
	db := pgLedger(t)
	proxy, viaProxy := newPGProxy(t, db)
	h := fleetHost(t, viaProxy, "host-a")
	p := h.catchup("2026-11-20T02:00:05Z", "--lease", "1s", "run", "--task", "settle", "--cron", "0 2 * * *", "--tz", "UTC",
		"--", "sh", "-c", `touch "$W/started"; while [ ! -e "$W/release" ]; do sleep 0.05; done; echo finished; exit 3`)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(h.dir, "started"))
	proxy.Down()
	touch(t, filepath.Join(h.dir, "release"))
	waitFor(t, "catchup to report that it retries recording the outcome", func() bool {
		return strings.Contains(p.stderr.String(), "recording the outcome of run")
	})
	proxy.Up()
	p.cmd.Wait()
	code := p.cmd.ProcessState.ExitCode()
	if code != 3 || !strings.Contains(p.stdout.String(), "finished") {
		t.Fatalf("exit %d, stdout %q: want the command's own 3", code, p.stdout.String())
	}
	rows := newCatchup(t, db, "2026-11-20T02:10:00Z", "history", "-o", "json")
	rows.run(t)
	if !strings.Contains(rows.stdout.String(), `"status": "failed"`) || !strings.Contains(rows.stdout.String(), `"exit_code": 3`) {
		t.Errorf("the outcome was not recorded: %s", rows.stdout.String())
	}
}
