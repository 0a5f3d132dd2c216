package sdnotify

import (
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// listen opens a datagram socket as systemd does for NOTIFY_SOCKET.
func listen(t *testing.T, name string) *net.UnixConn {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// received reads the datagrams that come within a short wait after the
// first (which must come within 10s).
func received(t *testing.T, conn *net.UnixConn) []string {
	t.Helper()
	var got []string
	buf := make([]byte, 4096)
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn.SetReadDeadline(deadline)
		n, err := conn.Read(buf)
		if err != nil {
			if len(got) == 0 {
				t.Fatalf("no datagram within 10s: %v", err)
			}
			return got
		}
		got = append(got, string(buf[:n]))
		deadline = time.Now().Add(200 * time.Millisecond)
	}
}

func TestReadySendsOnce(t *testing.T) {
	cases := map[string]struct {
		socket func(dir string) string
		status string
		want   string
	}{
		"path":                 {socket: func(dir string) string { return filepath.Join(dir, "notify") }, want: "READY=1\n"},
		"path, with status":    {socket: func(dir string) string { return filepath.Join(dir, "notify") }, status: "two\nlines", want: "READY=1\nSTATUS=two lines\n"},
		"abstract socket name": {socket: func(dir string) string { return "@catchup-sdnotify-test-" + filepath.Base(dir) }, want: "READY=1\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			socket := tc.socket(t.TempDir())
			addr := socket
			if socket[0] == '@' {
				addr = "\x00" + socket[1:]
			}
			conn := listen(t, addr)
			n := New(socket)
			var wg sync.WaitGroup
			for range 4 { // a timer and the end of the work, racing
				wg.Add(1)
				go func() { defer wg.Done(); n.Ready(tc.status) }()
			}
			wg.Wait()
			if err := n.Ready(tc.status); err != nil {
				t.Fatal(err)
			}
			got := received(t, conn)
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("datagrams %q, want one %q", got, tc.want)
			}
		})
	}
}

func TestNoSocketSendsNothing(t *testing.T) {
	var n *Notifier
	if err := n.Ready("x"); err != nil {
		t.Errorf("nil notifier: %v", err)
	}
	if err := New("").Ready("x"); err != nil {
		t.Errorf("no socket: %v", err)
	}
	if err := New("relative").Ready(""); err == nil {
		t.Error("a relative NOTIFY_SOCKET: no error")
	}
	if err := New(filepath.Join(t.TempDir(), "none")).Ready(""); err == nil {
		t.Error("a socket no one listens on: no error")
	}
}
