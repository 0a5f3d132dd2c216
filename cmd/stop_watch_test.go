package cmd

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/internal/jobsup"
)

// TestWatchStop: after a stop signal, a second one or the deadline ends
// catchup, 128+N of the first, unless a job of its own runs (the runner
// forwards signals to it, and its --grace governs it: the deadline counts
// from its end), and a daemon's SIGHUP (a reload) is no stop.
func TestWatchStop(t *testing.T) {
	const deadline = 400 * time.Millisecond
	none := func() {}
	tests := map[string]struct {
		daemon     bool
		act        func(ch chan<- os.Signal) (cleanup func())
		want       int  // 0: no exit within 3 deadlines
		atDeadline bool // not before it
	}{
		"second signal": {act: func(ch chan<- os.Signal) func() { ch <- syscall.SIGINT; return none }, want: 143},
		"deadline":      {act: func(chan<- os.Signal) func() { return none }, want: 143, atDeadline: true},
		"daemon's reload": {daemon: true, want: 143, atDeadline: true,
			act: func(ch chan<- os.Signal) func() { ch <- syscall.SIGHUP; return none }},
		"job running": {act: func(ch chan<- os.Signal) func() {
			end := jobsup.Started()
			ch <- syscall.SIGTERM
			return end
		}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			hupReloads.Store(tt.daemon)
			defer hupReloads.Store(false)
			ch := make(chan os.Signal, 1)
			code := make(chan int, 1)
			begin := time.Now()
			go watchStop(syscall.SIGTERM, ch, func(c int) { code <- c }, deadline)
			defer tt.act(ch)()
			select {
			case c := <-code:
				if c != tt.want {
					t.Errorf("exit %d after %v, want %d", c, time.Since(begin), tt.want)
				}
				if tt.atDeadline && time.Since(begin) < deadline {
					t.Errorf("exit after %v, before the deadline %v", time.Since(begin), deadline)
				}
			case <-time.After(3 * deadline):
				if tt.want != 0 {
					t.Errorf("no exit within %v, want %d", 3*deadline, tt.want)
				}
			}
		})
	}
}
