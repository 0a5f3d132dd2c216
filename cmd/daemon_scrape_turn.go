package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
)

// scrapeRead bounds a scrape's reading of the ledger; scrapeTurnWait its
// wait for the scrape reading before it.
const (
	scrapeRead     = 10 * time.Second
	scrapeTurnWait = 10 * time.Second
)

// errNoTurn: the scrape did not get its turn (answered 503), or its client
// went away; errLedgerSlow: the ledger did not answer within scrapeRead,
// or a read still waits for it.
var (
	errNoTurn     = errors.New("no turn to read the ledger")
	errLedgerSlow = fmt.Errorf("the ledger did not answer within %s", scrapeRead)
)

// scrapeTurns lets scrapes of /metrics read the ledger one at a time, so
// that a storm of them (every scraper of a fleet at once, a loop of curl)
// costs the fires no more than one reading does (on a SQLite ledger they
// share its one connection, and the CPU): each read the whole ledger at
// once, and the fires queued behind them started seconds late.
//
// A read is bounded by scrapeRead: past it, the scrape answers without the
// ledger. A read that cannot be cut (on SQLite, the wait for the ledger's
// one connection, which a write holds while another process holds the
// ledger locked, up to its 30 s busy timeout) keeps the turn until it
// ends, and each scrape meanwhile answers at once without the ledger:
// before, the scrape waited for it, past any scraper's timeout (and the
// server's 30 s write bound: no answer at all), and the next ones were
// answered 503.
type scrapeTurns struct {
	reading chan struct{} // holds a token while a read runs
	mu      sync.Mutex
	stuck   chan struct{} // closed once the running read outlived its bound (under mu)
}

func newScrapeTurns() *scrapeTurns {
	return &scrapeTurns{reading: make(chan struct{}, 1), stuck: make(chan struct{})}
}

// read runs f, the scrape's reading, in its turn and within scrapeRead:
// its warnings' count (said's, complete when read), what it read, and its
// error; errLedgerSlow when the ledger did not answer in time, errNoTurn
// when the scrape got no turn (answered here: 503).
func (s *scrapeTurns) read(w http.ResponseWriter, r *http.Request,
	f func(ctx context.Context) (said func(complete bool) int, tasks []catchup.TaskMetrics, err error)) ([]catchup.TaskMetrics, int, error) {
	if err := s.take(w, r); err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), scrapeRead)
	type result struct {
		said  func(complete bool) int
		tasks []catchup.TaskMetrics
		err   error
	}
	done := make(chan result, 1)
	overran := false // the scrape answered without this read (under s.mu)
	go func() {
		defer func() { <-s.reading }()
		defer cancel()
		said, tasks, err := f(ctx)
		s.mu.Lock()
		done <- result{said, tasks, err}
		late := overran
		if late {
			s.stuck = make(chan struct{}) // the next scrapes read again
		}
		s.mu.Unlock()
		if late {
			said(err == nil) // its warnings are still said, once each
		}
	}()
	select {
	case res := <-done:
		return res.tasks, res.said(res.err == nil), res.err
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case res := <-done: // it ended as the bound came
		return res.tasks, res.said(res.err == nil), res.err
	default:
	}
	if r.Context().Err() != nil {
		return nil, 0, errNoTurn // its client left: the read is not late, and no one waits for the answer
	}
	overran = true
	close(s.stuck) // the scrapes meanwhile answer at once
	return nil, 0, errLedgerSlow
}

// take waits for the scrape's turn: nil once it has it. A scrape that does
// not get it within scrapeTurnWait is answered 503, saying why; one that
// finds the read holding it past its bound does not wait (errLedgerSlow).
func (s *scrapeTurns) take(w http.ResponseWriter, r *http.Request) error {
	s.mu.Lock()
	stuck := s.stuck
	s.mu.Unlock()
	select {
	case s.reading <- struct{}{}: // free: taken before a stuck read's news
		return nil
	default:
	}
	t := time.NewTimer(scrapeTurnWait)
	defer t.Stop()
	select {
	case s.reading <- struct{}{}:
		return nil
	case <-stuck:
		return errLedgerSlow
	case <-r.Context().Done():
	case <-t.C:
		http.Error(w, fmt.Sprintf("other scrapes have been reading the ledger for %s: scrape less often, or from fewer scrapers", scrapeTurnWait),
			http.StatusServiceUnavailable)
	}
	return errNoTurn
}
