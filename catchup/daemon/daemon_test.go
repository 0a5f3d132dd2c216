package daemon

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestStopCountsNothingMore pins the rule that keeps a stop safe: once Run
// has begun stopping, no fire or replay is counted among the jobs it waits
// for (a sync.WaitGroup Add beside its Wait is a misuse that can panic), and
// the stop is logged one event a line.
func TestStopCountsNothingMore(t *testing.T) {
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
