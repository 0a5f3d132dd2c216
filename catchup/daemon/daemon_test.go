package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestStopCountsNothingMore pins the rule that keeps a stop safe: once Run
// has begun stopping, no fire or replay is counted among the jobs it waits
// for (a sync.WaitGroup Add beside its Wait is a misuse that can panic), and
// the stop is logged one event a line.
func TestStopCountsNothingMore(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	d := New(Config{Log: slog.New(slog.NewJSONHandler(&logs, nil)), Grace: time.Second})
	if !d.begin() {
		t.Fatal("begin before any stop: false, want true")
	}
	d.fires.Done()
	stop := make(chan os.Signal, 1)
	stop <- syscall.SIGTERM
	done := make(chan struct{})
	go func() { d.Run(stop, nil); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of SIGTERM with no job running")
	}
	if d.begin() {
		t.Fatal("begin after the stop: true, want false (a fire counted beside the final Wait)")
	}
	var events []string
	for _, line := range bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n")) {
		var e struct{ Event string }
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		events = append(events, e.Event)
	}
	want := []string{"start", "stop", "exit"}
	if len(events) != len(want) {
		t.Fatalf("events %v, want %v", events, want)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Fatalf("events %v, want %v", events, want)
		}
	}
}

// TestReloadRetriedAfterALedgerFault: a reload refused because the ledger
// could not be reached (not because of the crontab) is tried again by
// itself: the changed crontab would otherwise wait for the next edit or
// SIGHUP, its new lines never scheduled nor registered.
func TestReloadRetriedAfterALedgerFault(t *testing.T) {
	// Serial: it shortens reloadRetry, package-wide.
	defer func(d time.Duration) { reloadRetry = d }(reloadRetry)
	reloadRetry = 10 * time.Millisecond
	var loads atomic.Int32
	reloaded := make(chan struct{})
	load := func(context.Context, func(string) time.Time) ([]Task, error) {
		if loads.Add(1) == 1 {
			return nil, fmt.Errorf("register task h: %w", store.ErrLedgerUnreachable)
		}
		close(reloaded)
		return nil, nil
	}
	stop, done := runReloading(load)
	select {
	case <-reloaded:
	case <-time.After(30 * time.Second):
		t.Fatal("the reload refused for an unreachable ledger was not tried again within 30s")
	}
	stop <- syscall.SIGTERM
	<-done
}

// runReloading runs a daemon without tasks whose reloads call load, and
// sends it a SIGHUP; a signal on stop ends it, done is closed once it has.
func runReloading(load func(context.Context, func(string) time.Time) ([]Task, error)) (stop chan os.Signal, done chan struct{}) {
	d := New(Config{Log: slog.New(slog.NewTextHandler(&safeBuffer{b: &bytes.Buffer{}}, nil)), Grace: time.Second, Load: load})
	stop, hup := make(chan os.Signal, 1), make(chan os.Signal, 1)
	done = make(chan struct{})
	go func() { d.Run(stop, hup); close(done) }()
	hup <- syscall.SIGHUP
	return stop, done
}

// safeBuffer is a bytes.Buffer the daemon's goroutines can log to at once.
type safeBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
