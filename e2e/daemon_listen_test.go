package e2e

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// listenAddr waits for the daemon's event=listen line and returns its
// address.
func listenAddr(t *testing.T, p *catchupProc) string {
	t.Helper()
	listening := regexp.MustCompile(`event=listen addr=(\S+)`)
	var addr string
	waitFor(t, "the daemon to serve /metrics (its event=listen line)", func() bool {
		if m := listening.FindStringSubmatch(p.stderr.String()); m != nil {
			addr = m[1]
			return true
		}
		return false
	})
	return addr
}

// TestDaemonListenerHoldsNoFireUp: clients of `--listen` that open
// connections and keep them (one request, then idle: a keep-alive pool, a
// port scanner, a flood) cost the daemon no more than a bounded number of
// descriptors. Each connection it accepted held one for as long as the
// client kept it, without a limit: under the process's open-file limit,
// a few hundred idle connections left the next fires no descriptor for
// their lock file, their pipes or their note (`too many open files`), and
// they were not run.
func TestDaemonListenerHoldsNoFireUp(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	_, db := tempLedger(t)
	h := newDaemonHost(t, db)
	h.extra = []string{"--listen", "127.0.0.1:0"}
	p := h.start("a")
	// Both limits: the Go runtime raises the soft limit to the hard one.
	lim := unix.Rlimit{Cur: 64, Max: 64}
	if err := unix.Prlimit(p.cmd.Process.Pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Fatal(err)
	}
	addr := listenAddr(t, p)
	waitFor(t, "the daemon's first fire", func() bool { return len(readLines(t, h.out)) >= 1 })

	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range 300 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns)+1, err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: catchup\r\n\r\n")
	}
	before := len(readLines(t, h.out))
	waitFor(t, "three more fires run while 300 connections are held", func() bool {
		if strings.Contains(p.stderr.String(), "too many open files") {
			t.Fatalf("the held connections took the fires' descriptors:\n%s", p.stderr.String())
		}
		return len(readLines(t, h.out)) >= before+3
	})
	if s := p.stderr.String(); strings.Contains(s, "event=skip") || strings.Contains(s, "too many open files") {
		t.Errorf("a fire suffered from the held connections:\n%s", s)
	}
}
