package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonStoppedWhileStarting: a stop signal that reaches the daemon
// while it opens its ledger (a PostgreSQL server that accepts and does
// not answer yet) ends it with exit 0 and fires nothing, as a stop does
// once it runs; it is not a failed start (exit 2, "context canceled").
func TestDaemonStoppedWhileStarting(t *testing.T) {
	for name, first := range map[string][]syscall.Signal{
		"SIGTERM":          {syscall.SIGTERM},
		"SIGHUP then TERM": {syscall.SIGHUP, syscall.SIGTERM},
	} {
		t.Run(name, func(t *testing.T) { testDaemonStoppedWhileStarting(t, first) })
	}
}

func testDaemonStoppedWhileStarting(t *testing.T, sigs []syscall.Signal) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	cron := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(cron, []byte("# catchup: task=job\n* * * * * true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := "postgres://u@" + ln.Addr().String() + "/x?sslmode=disable&connect_timeout=60"
	p := newCatchup(t, db, "", "daemon", "--crontab", cron)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) })
	var c net.Conn
	select {
	case c = <-accepted: // the daemon is opening its ledger
	case <-time.After(time.Minute):
		t.Fatalf("the daemon did not connect to its ledger within a minute; stderr:\n%s", p.stderr.String())
	}
	defer c.Close()
	for _, sig := range sigs { // a SIGHUP first must not cut the start, nor swallow the stop
		if err := p.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
	}
	err = p.cmd.Wait()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 || strings.Contains(p.stderr.String(), "context canceled") ||
		!strings.Contains(p.stderr.String(), "stopped by SIGTERM while starting") {
		t.Errorf("daemon stopped while starting: exit %d (%v), stderr:\n%s\nwant exit 0", code, err, p.stderr.String())
	}
}
