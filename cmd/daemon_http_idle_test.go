package cmd

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestDaemonHTTPClosesIdleConnections: --listen serves whoever can reach
// it (the example listens on every interface). A client that made one
// request and then kept its connection open, idle, held it for good: no
// timeout but the one on the first request's headers, so that enough of
// them ran the daemon (root's, with every job of the host) out of file
// descriptors. An idle connection is now closed after httpIdle.
func TestDaemonHTTPClosesIdleConnections(t *testing.T) {
	defer func(d time.Duration) { httpIdle = d }(httpIdle)
	httpIdle = 300 * time.Millisecond
	_, _, addr := listeningDaemon(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the daemon kept an idle connection open 10 s after its request (want it closed after %s)", httpIdle)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("read on the idle connection: %v, want EOF (closed by the daemon)", err)
	}
}
