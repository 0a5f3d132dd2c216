package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/daemon"
	"github.com/catchup/catchup/store"
)

// listenDaemon listens on --listen's address; an address in use is named
// with the fix (usageErr adds the pointer to --help).
func listenDaemon(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("--listen %s: %w; fix: stop what listens there (another catchup daemon?), or give --listen another port", addr, err)
	}
	return nil, fmt.Errorf("--listen %s: %w", addr, err)
}

// healthyLoop is how long the scheduler loop may stay silent (it goes round
// every second) before /healthz fails.
const healthyLoop = 10 * time.Second

// serveDaemon serves /healthz and /metrics on ln until the process ends.
// m.Notice says a warning into the daemon's log: those of /metrics's
// reading, once each (scrapeWarnings), not at every scrape.
func serveDaemon(ln net.Listener, d *daemon.Daemon, st store.Store, m catchup.Machine, rule catchup.MissedRule) {
	warnings := newScrapeWarnings(func(w string) { m.Notice("%s", w) })
	mux := http.NewServeMux()
	// GET (and HEAD) only: another method is refused, 405, and reads
	// nothing.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if since := d.Lag().SinceLoop; since > healthyLoop {
			http.Error(w, fmt.Sprintf("scheduler loop silent for %s", catchup.FormatDuration(since.Round(time.Second))), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	turns := newScrapeTurns() // one scrape reads the ledger at a time
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		// The daemon's own metrics are served also when the ledger cannot
		// be read: catchup_daemon_ledger_up 0, its families left out (an
		// alert on the fires it could not record still reads them).
		tasks, warned, err := turns.read(w, r, func(ctx context.Context) (func(complete bool) int, []catchup.TaskMetrics, error) {
			sm := m
			var said func(complete bool) int
			sm.Notice, said = warnings.scrape()
			tasks, err := catchup.Metrics(ctx, st, sm, rule)
			return said, tasks, err
		})
		if errors.Is(err, errNoTurn) {
			return // answered 503, or the client is gone
		}
		families := append(lagFamilies(d.Lag()), ledgerUp(err == nil), scrapeWarningsFamily(warned))
		if err == nil {
			families = append(families, metricFamilies(tasks)...)
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		writeMetrics(w, families)
	})
	// Whoever can reach --listen is served: each request is bounded in
	// reading (headers, body) and writing, an idle connection is closed
	// (without, one kept open after a request was held for good: enough of
	// them ran the daemon out of file descriptors), and the connections are
	// bounded in number (daemon_http_limit.go).
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: httpRead,
		IdleTimeout: httpIdle, WriteTimeout: httpWrite, MaxHeaderBytes: httpHeaderBytes}
	go srv.Serve(newLimitListener(ln, maxHTTPConns))
}

// lagFamilies are the scheduler's own metrics.
func lagFamilies(l daemon.Lag) []*dto.MetricFamily {
	var out []*dto.MetricFamily
	add := func(name, help string, kind dto.MetricType, v float64) {
		f := newFamily(name, help, kind)
		f.set(v)
		out = append(out, f.mf)
	}
	gauge, counter := dto.MetricType_GAUGE, dto.MetricType_COUNTER
	add("catchup_daemon_fire_lateness_seconds_last", "Lateness of the latest fire (slot to job start).", gauge, l.Last)
	add("catchup_daemon_fire_lateness_seconds_max", "Largest lateness of a fire since the daemon started.", gauge, l.Max)
	add("catchup_daemon_fire_lateness_seconds_total", "Lateness of the fires (slot to job start), summed.", counter, l.Sum)
	add("catchup_daemon_fires_total", "Scheduled fires whose job started.", counter, float64(l.Fires))
	add("catchup_daemon_fires_unrecorded_total", "Scheduled fires the ledger could not record (not run, or run unrecorded).",
		counter, float64(l.FiresUnrecorded))
	add("catchup_daemon_ledger_failing_seconds", "How long the ledger has failed to record the fires, from the first it could not or that waited 10s for it (0: it records them).",
		gauge, l.LedgerFailing.Seconds())
	add("catchup_daemon_loop_silent_seconds", "Since the scheduler loop last went round (every second when alive).", gauge, l.SinceLoop.Seconds())
	add("catchup_daemon_running_jobs", "Jobs (fires and replays) running now.", gauge, float64(l.Running))
	return out
}

// ledgerUp is whether /metrics could read the ledger (its families are
// served only then).
func ledgerUp(up bool) *dto.MetricFamily {
	f := newFamily("catchup_daemon_ledger_up", "Whether this scrape could read the ledger (1) or not (0: its metrics are left out).",
		dto.MetricType_GAUGE)
	f.set(map[bool]float64{true: 1, false: 0}[up])
	return f.mf
}

// scrapeWarningsFamily is how many warnings this scrape's reading gave (a
// user's notes of unrecorded fires refused, ...): the log says each once,
// when it first appears, so that a gauge keeps it in sight.
func scrapeWarningsFamily(n int) *dto.MetricFamily {
	f := newFamily("catchup_daemon_scrape_warnings",
		"Warnings this scrape gave as it read the ledger and the notes of unrecorded fires (a notes file refused...); the log says each once, when it first appears.",
		dto.MetricType_GAUGE)
	f.set(float64(n))
	return f.mf
}
