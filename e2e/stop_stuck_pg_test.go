package e2e

import (
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hangingProxy forwards to the PostgreSQL test server until freeze: from
// then on it keeps every connection open, and accepts new ones, but
// forwards nothing: a server (or a network) that stopped answering
// mid-statement, without stopping the server other tests use.
type hangingProxy struct {
	frozen atomic.Bool
	mu     sync.Mutex
	open   []net.Conn
}

func newHangingProxy(t *testing.T, dsn string) (*hangingProxy, string) {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hangingProxy{}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.open {
			c.Close()
		}
	})
	target := u.Host
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.keep(c)
			if p.frozen.Load() {
				go io.Copy(io.Discard, c)
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.keep(s)
			go p.pipe(s, c)
			go p.pipe(c, s)
		}
	}()
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *hangingProxy) keep(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open = append(p.open, c)
}

// pipe copies src to dst until freeze, then drops what src sends.
func (p *hangingProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			dst.Close()
			return
		}
		if !p.frozen.Load() {
			dst.Write(buf[:n])
		}
	}
}

// TestStopStuckPostgresNotAnswering: a run whose shared ledger stopped
// answering (mid-statement, the connection still open) once its job had
// ended waits for the outcome's record; stopped, it ends at a second
// SIGTERM, 143, naming the ledger it was waiting for, and its run stays
// running in the ledger for a later scan to take for dead.
func TestStopStuckPostgresNotAnswering(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	proxy, viaProxy := newHangingProxy(t, db)
	h := fleetHost(t, viaProxy, "host-a")
	p := h.catchup("", "run", "--task", "hang", "--", "sh", "-c",
		`echo $$ > "$W/job.pid"; while [ ! -e "$W/release" ]; do sleep 0.05; done`)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(h.dir, "job.pid"))
	job := readPID(t, filepath.Join(h.dir, "job.pid"))
	proxy.frozen.Store(true)
	if err := os.WriteFile(filepath.Join(h.dir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitGone(t, job)
	p.cmd.Process.Signal(syscall.SIGTERM)
	code, _ := exitOf(t, p, 15*time.Second, "SIGTERM again and again", syscall.SIGTERM)
	if code != 143 {
		t.Errorf("exit %d, want 143 (SIGTERM): %s", code, p.stderr.String())
	}
	if got := p.stderr.String(); !strings.Contains(got, "not waiting for the PostgreSQL ledger, which has not answered") {
		t.Errorf("stderr %q: want one line naming the ledger it waited for", got)
	}
}
