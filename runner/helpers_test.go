package runner

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangGuard is not a performance bound: only a limit past which Run is
// considered hung.
const hangGuard = 30 * time.Second

// sh returns argv running script with /bin/sh; args become $1, $2, ...
func sh(script string, args ...string) []string {
	return append([]string{"/bin/sh", "-c", script, "sh"}, args...)
}

// run calls Run with a background context and fails the test on error or
// if Run does not return within hangGuard.
func run(t *testing.T, cfg Config) Result {
	t.Helper()
	return runCtx(t, context.Background(), cfg)
}

func runCtx(t *testing.T, ctx context.Context, cfg Config) Result {
	t.Helper()
	type outcome struct {
		res Result
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		res, err := Run(ctx, cfg)
		ch <- outcome{res, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatalf("Run: unexpected error: %v", o.err)
		}
		return o.res
	case <-time.After(hangGuard):
		t.Fatalf("Run did not return within %v", hangGuard)
		return Result{}
	}
}

// syncBuffer is a goroutine-safe buffer that closes ready the first time
// its content contains marker.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	ready  chan struct{}
	once   sync.Once
}

func newSyncBuffer(marker string) *syncBuffer {
	return &syncBuffer{marker: marker, ready: make(chan struct{})}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.marker != "" && strings.Contains(b.buf.String(), b.marker) {
		b.once.Do(func() { close(b.ready) })
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// processGone reports whether pid no longer exists or is a zombie.
func processGone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone polls until pid is gone, failing the test after hangGuard.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
