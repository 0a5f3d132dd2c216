package cmd

import (
	"net"
	"sync"
	"time"
)

// The listener's bounds: a client of --listen (a scraper's keep-alive
// pool, a port scanner, a flood) costs the daemon at most maxHTTPConns
// descriptors, each for a bounded time, so that the fires always find
// theirs (lock files, pipes, notes, the ledger). The connections beyond
// the limit wait in the kernel's backlog, holding no descriptor of the
// daemon's, until one is closed.
const (
	maxHTTPConns    = 16
	httpRead        = 10 * time.Second // a request, headers and body
	httpWrite       = 30 * time.Second // a request's answer, from its headers read (/metrics reads for 10 s at most)
	httpHeaderBytes = 64 << 10         // a request's headers: /healthz and /metrics need none
)

// httpIdle is how long a keep-alive connection stays open between two
// requests (a variable for a test).
var httpIdle = 30 * time.Second

// limitListener accepts at most n connections at once: Accept waits until
// one of those it returned is closed.
type limitListener struct {
	net.Listener
	sem chan struct{}
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n)}
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.sem <- struct{}{}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

// limitConn gives its place back once, at its first Close.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
