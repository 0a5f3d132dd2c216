// Command pgcount is a TCP proxy in front of a PostgreSQL server that
// counts what its clients send: statements (Execute and simple Query
// messages) and round trips (Sync and simple Query messages: the client
// waits for the server's answer after each). With -delay it holds each
// Sync or Query that long before passing it on, as a server that far away
// would answer it later. SIGUSR1 prints the counts since the last print
// and starts them again. The clients must connect without TLS
// (sslmode=disable): it reads their messages.
//
//	pgcount [-listen 127.0.0.1:15432] [-target 127.0.0.1:5432] [-delay 20ms] &
//	catchup --db 'postgres://USER@127.0.0.1:15432/DB?sslmode=disable' ls
//	kill -USR1 %1   # conns=1 statements=8 roundtrips=16
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// counts are what the clients sent since the last print.
type counts struct {
	conns, statements, roundTrips atomic.Int64
}

// take returns the counts as one line and starts them again.
func (c *counts) take() string {
	return fmt.Sprintf("conns=%d statements=%d roundtrips=%d", c.conns.Swap(0), c.statements.Swap(0), c.roundTrips.Swap(0))
}

func main() {
	listen := flag.String("listen", "127.0.0.1:15432", "address to listen on")
	target := flag.String("target", "127.0.0.1:5432", "the PostgreSQL server")
	delay := flag.Duration("delay", 0, "how long each round trip is held")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcount:", err)
		os.Exit(2)
	}
	var c counts
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		for range sig {
			fmt.Println(c.take())
		}
	}()
	for {
		client, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgcount:", err)
			os.Exit(2)
		}
		go func() {
			defer client.Close()
			server, err := net.Dial("tcp", *target)
			if err != nil {
				fmt.Fprintln(os.Stderr, "pgcount:", err)
				return
			}
			defer server.Close()
			c.conns.Add(1)
			go io.Copy(client, server)
			if err := c.relay(client, server, *delay); err != nil && err != io.EOF {
				fmt.Fprintln(os.Stderr, "pgcount:", err)
			}
		}()
	}
}

// relay passes the client's messages on to the server, counting them:
// first the startup message (its length, then its body), then typed
// messages (a type byte, then the length, which counts itself).
func (c *counts) relay(client io.Reader, server io.Writer, delay time.Duration) error {
	var n [4]byte
	if _, err := io.ReadFull(client, n[:]); err != nil {
		return err
	}
	startup := make([]byte, binary.BigEndian.Uint32(n[:]))
	copy(startup, n[:])
	if _, err := io.ReadFull(client, startup[4:]); err != nil {
		return err
	}
	if _, err := server.Write(startup); err != nil {
		return err
	}
	for {
		var head [5]byte
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return err
		}
		msg := make([]byte, 1+binary.BigEndian.Uint32(head[1:]))
		copy(msg, head[:])
		if _, err := io.ReadFull(client, msg[5:]); err != nil {
			return err
		}
		switch head[0] {
		case 'E':
			c.statements.Add(1)
		case 'Q':
			c.statements.Add(1)
			c.roundTrips.Add(1)
		case 'S':
			c.roundTrips.Add(1)
		}
		if delay > 0 && (head[0] == 'S' || head[0] == 'Q') {
			time.Sleep(delay)
		}
		if _, err := server.Write(msg); err != nil {
			return err
		}
	}
}
