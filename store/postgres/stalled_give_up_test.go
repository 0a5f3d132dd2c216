package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/catchup/catchup/store/postgres"
)

// stallingProxy forwards TCP connections to the ledger's server until
// stall is set; from then on it passes no byte either way and closes
// nothing: a server frozen, a storage stall, a partition whose far side
// still acknowledges.
type stallingProxy struct {
	addr  string
	stall atomic.Bool
	mu    sync.Mutex
	conns []net.Conn
}

func newStallingProxy(t *testing.T, target string) *stallingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallingProxy{addr: ln.Addr().String()}
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go p.pipe(out, in)
			go p.pipe(in, out)
		}
	}()
	return p
}

// cut closes every connection it forwards: a statement still waiting on
// one ends.
func (p *stallingProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// pipe copies from src to dst, dropping what it reads once stalled.
func (p *stallingProxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.stall.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestStalledLedgerGivesUpAfterTheStop: a write marked by
// store.GiveUpWaitsWhen (a stopping daemon's outcome, written with a
// context nothing cancels) on a ledger whose server stopped answering
// without closing its connections gives up store.LastChance after its
// caller gave up, as an unreachable ledger (the outcome is then noted on
// the host for the next scan): the daemon's stop stays bounded by its
// grace. It used to wait until the server answered again (12 minutes in
// the run that found it). A write without the mark, or made while the
// server answers, is not cut. The stop's later writes give up at once.
// Closing the ledger then does not wait for
// the server either.
func TestStalledLedgerGivesUpAfterTheStop(t *testing.T) {
	dsn := storetest.PostgresLedger(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newStallingProxy(t, u.Host)
	u.Host = proxy.addr
	ctx := context.Background()
	st, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	task := store.Task{Name: "t", Schedule: "0 * * * *", TZ: "UTC", Replay: "all",
		Argv: []string{"true"}, RegisteredAt: storetest.T0, UpdatedAt: storetest.T0}
	if err := st.UpsertTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	stopped, stop := context.WithCancel(ctx)
	stop() // the daemon's stop came, its grace is over
	marked := store.GiveUpWaitsWhen(context.WithoutCancel(ctx), stopped)

	// The server answers: a write after the give-up is made.
	task.UpdatedAt = storetest.T0.Add(time.Minute)
	if err := st.UpsertTask(marked, task); err != nil {
		t.Fatalf("a write after the give-up, the server answering: %v; want it made", err)
	}

	proxy.stall.Store(true)
	defer proxy.cut() // before st.Close, which waits for a statement in flight
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- st.SetSettled(marked, "t", storetest.T0.Add(time.Hour)) }()
	const bound = 20 * time.Second // store.LastChance, on a busy machine
	select {
	case err := <-done:
		if !errors.Is(err, store.ErrLedgerUnreachable) {
			t.Fatalf("the write on the stalled ledger: %v; want it given up as unreachable", err)
		}
		t.Logf("given up after %s: %v", time.Since(began).Round(time.Millisecond), err)
	case <-time.After(bound):
		t.Fatalf("the write on the stalled ledger still waits %s after its caller gave up: the daemon's stop is unbounded", bound)
	}

	// The stop's later writes take the server for stalled: they give up at
	// once, without waiting store.LastChance each (it answers again here,
	// to tell). A write under another mark is made.
	proxy.stall.Store(false)
	if err := st.SetSettled(marked, "t", storetest.T0.Add(2*time.Hour)); !errors.Is(err, store.ErrLedgerUnreachable) {
		t.Errorf("a later write of the stop: %v; want it given up at once, as unreachable", err)
	}
	other, otherStop := context.WithCancel(ctx)
	defer otherStop()
	if err := st.SetSettled(store.GiveUpWaitsWhen(context.WithoutCancel(ctx), other), "t", storetest.T0.Add(3*time.Hour)); err != nil {
		t.Errorf("a write under another mark: %v; want it made", err)
	}
	proxy.stall.Store(true)

	// Nor does closing the ledger wait for the server (the daemon's exit).
	closed := make(chan struct{})
	go func() {
		st.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatalf("closing the stalled ledger still waits after %s", bound)
	}
}
