package e2e

import (
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
)

// countingProxy forwards connections to the PostgreSQL server and counts
// what the clients send, as scripts/bench/pgcount does: statements
// (Execute and simple Query messages) and round trips (Sync and simple
// Query messages: the client waits for the answer after each).
type countingProxy struct {
	statements, roundTrips atomic.Int64
}

// newCountingProxy starts a proxy in front of db's server and returns the
// proxy and db through it.
func newCountingProxy(t *testing.T, db string) (*countingProxy, string) {
	t.Helper()
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &countingProxy{}
	target := u.Host
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(c, s); c.Close() }()
			go func() { p.relay(c, s); s.Close() }()
		}
	}()
	u.Host = ln.Addr().String()
	q := u.Query()
	q.Set("sslmode", "disable") // the proxy reads the messages
	u.RawQuery = q.Encode()
	return p, u.String()
}

// relay passes the client's messages on: the startup message (its length,
// then its body), then typed messages (a type byte, then the length, which
// counts itself).
func (p *countingProxy) relay(client io.Reader, server io.Writer) {
	var n [4]byte
	if _, err := io.ReadFull(client, n[:]); err != nil {
		return
	}
	startup := make([]byte, binary.BigEndian.Uint32(n[:]))
	copy(startup, n[:])
	if _, err := io.ReadFull(client, startup[4:]); err != nil {
		return
	}
	if _, err := server.Write(startup); err != nil {
		return
	}
	for {
		var head [5]byte
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return
		}
		msg := make([]byte, 1+binary.BigEndian.Uint32(head[1:]))
		copy(msg, head[:])
		if _, err := io.ReadFull(client, msg[5:]); err != nil {
			return
		}
		switch head[0] {
		case 'E':
			p.statements.Add(1)
		case 'Q':
			p.statements.Add(1)
			p.roundTrips.Add(1)
		case 'S':
			p.roundTrips.Add(1)
		}
		if _, err := server.Write(msg); err != nil {
			return
		}
	}
}

// take returns the counts since the last take.
func (p *countingProxy) take() (statements, roundTrips int64) {
	return p.statements.Swap(0), p.roundTrips.Swap(0)
}

// TestFireRoundTrips: on a shared ledger each round trip is the network's
// latency, paid by every fire. A fire of a new slot makes no round trip but
// its statements' own (pgx's default mode prepared each statement new to
// the connection first, a round trip more: every statement of a fire is,
// each catchup run being a new process): 20 statements in 16 round trips
// (28 before; 19 until a fire's registration waited for its claim's grant,
// store.ClaimRequest.RegisterIfClaimed, and rode its run's insert), ls 10 in 10 (16 before; 8 until the causes of missed slots
// read the same hosts for every reader: the ledger's hosts and who fired
// each task with missed slots, two statements, here seven missed slots).
// The bounds are today's counts: a change that adds a round trip to a fire
// must say so here.
func TestFireRoundTrips(t *testing.T) {
	t.Parallel() // waits more than it works: see TestMain
	db := pgLedger(t)
	proxy, viaProxy := newCountingProxy(t, db)
	h := fleetHost(t, viaProxy, "host-a")
	fire := func(now string) {
		t.Helper()
		p := h.catchup(now, "run", "--task", "t", "--cron", "* * * * *", "--tz", "UTC", "--", "true")
		if code := p.run(t); code != 0 {
			t.Fatalf("fire at %s exited %d: %s", now, code, p.stderr.String())
		}
	}
	fire("2026-11-20T02:00:05Z") // creates the ledger
	fire("2026-11-20T02:01:05Z")
	proxy.take()
	fire("2026-11-20T02:02:05Z")
	if st, rt := proxy.take(); rt > st || rt > 16 {
		t.Errorf("a fire made %d statements in %d round trips, want at most one round trip a statement and at most 16", st, rt)
	} else {
		t.Logf("a fire: %d statements, %d round trips", st, rt)
	}
	ls := h.catchup("2026-11-20T02:10:00Z", "ls")
	if code := ls.run(t); code != 0 {
		t.Fatalf("ls exited %d: %s", code, ls.stderr.String())
	}
	if st, rt := proxy.take(); rt > st || rt > 10 {
		t.Errorf("ls made %d statements in %d round trips, want at most one round trip a statement and at most 10", st, rt)
	} else {
		t.Logf("ls: %d statements, %d round trips", st, rt)
	}
}
