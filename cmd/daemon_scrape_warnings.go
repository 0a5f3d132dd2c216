package cmd

import (
	"fmt"
	"slices"
	"sync"
)

// scrapeWarnings says, for the daemon's /metrics, the warnings its readers
// give as it reads the ledger and the notes (a user's notes of unrecorded
// fires refused, this host's): a one-shot command says them once per
// command, but a scrape comes every 15 to 60 s, and said at every scrape
// the same warning filled the journal forever. A warning is said once,
// when a scrape first gives it, and again only when it changes (another
// reason, another fix) or after a scrape that read everything without it
// (fixed, then refused again). Each scrape still reads everything: the
// counts it serves are never stale, only the log is spared.
type scrapeWarnings struct {
	say func(string) // one warning into the log

	mu     sync.Mutex
	active map[string]bool // the warnings in force: said, and not seen gone since
}

func newScrapeWarnings(say func(string)) *scrapeWarnings {
	return &scrapeWarnings{say: say, active: map[string]bool{}}
}

// scrape is one scrape's notice function (catchup.Machine.Notice), which
// collects its warnings, and done, which says those not in force and
// returns how many the scrape gave. complete: the scrape read everything
// (the ledger could be read), so that a warning in force it did not give
// is gone; a scrape cut short proves nothing gone.
func (s *scrapeWarnings) scrape() (notice func(format string, args ...any), done func(complete bool) int) {
	var mu sync.Mutex
	var got []string
	notice = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if w := fmt.Sprintf(format, args...); !slices.Contains(got, w) {
			got = append(got, w)
		}
	}
	done = func(complete bool) int {
		mu.Lock()
		defer mu.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		seen := map[string]bool{}
		for _, w := range got {
			seen[w] = true
			if !s.active[w] {
				s.say(w)
			}
		}
		if complete {
			s.active = seen
		} else {
			for w := range seen {
				s.active[w] = true
			}
		}
		return len(got)
	}
	return notice, done
}
