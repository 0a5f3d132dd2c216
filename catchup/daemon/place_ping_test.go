package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFireGivesItsPlaceBeforeItsEndPing: a fire gives its place under
// --concurrency back once its job has ended and its outcome is recorded,
// before its end ping (and --notify-cmd): an alert is no job. It held the
// place through the end ping, up to 10 s with a monitor that does not
// answer, so that under --concurrency 1 every other task's fire started
// up to 10 s late, behind each fire with a --ping: a monitor down delayed
// other jobs' starts.
func TestFireGivesItsPlaceBeforeItsEndPing(t *testing.T) {
	t.Parallel()
	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f := newFireFixture(t, "tick", "none", slot)
	endPing := make(chan struct{})     // the monitor has the end ping
	endPingOver := make(chan struct{}) // and has given up on it
	release := make(chan struct{})     // the monitor answers at last
	mon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/start") {
			return
		}
		close(endPing)
		defer close(endPingOver)
		select { // no answer until released
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer mon.Close()
	f.task.Req.Ping = mon.URL + "/ping/tok"
	f.d.limiter = make(chan struct{}, 1) // --concurrency 1

	fired := make(chan struct{})
	go func() { defer close(fired); f.d.fire(context.Background(), f.task, slot) }()
	select {
	case <-endPing:
	case <-time.After(30 * time.Second):
		t.Fatalf("no end ping 30s after the fire; fires:\n%slog:\n%s", f.fires(), f.logs.String())
	}
	for placed := false; !placed; {
		select {
		case f.d.limiter <- struct{}{}: // another task's fire takes the place
			<-f.d.limiter
			placed = true
		case <-endPingOver:
			t.Fatalf("the fire held its place under --concurrency through its end ping; log:\n%s", f.logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	close(release)
	<-fired
}
