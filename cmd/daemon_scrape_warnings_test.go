package cmd

import (
	"strings"
	"testing"
)

// TestScrapeWarningsSaidOnce: the daemon's /metrics says a warning of its
// reading once, when a scrape first gives it, not at every scrape; again
// when it changes, or once a scrape that read everything went without it
// (fixed, then refused again); a scrape cut short (the ledger unreadable)
// proves nothing gone. Each scrape counts the warnings it gave.
func TestScrapeWarningsSaidOnce(t *testing.T) {
	type scrape struct {
		warnings []string
		complete bool
	}
	ok := func(w ...string) scrape { return scrape{w, true} }
	cut := func(w ...string) scrape { return scrape{w, false} }
	tests := map[string]struct {
		scrapes []scrape
		said    []string
	}{
		"the same warning at every scrape": {
			scrapes: []scrape{ok("A"), ok("A"), ok("A")},
			said:    []string{"A"},
		},
		"given twice by one scrape": {
			scrapes: []scrape{ok("A", "A"), ok("A")},
			said:    []string{"A"},
		},
		"another reason": {
			scrapes: []scrape{ok("A"), ok("A"), ok("B"), ok("B")},
			said:    []string{"A", "B"},
		},
		"fixed, then refused again": {
			scrapes: []scrape{ok("A"), ok(), ok("A"), ok("A")},
			said:    []string{"A", "A"},
		},
		"a scrape cut short proves nothing gone": {
			scrapes: []scrape{ok("A"), cut(), ok("A")},
			said:    []string{"A"},
		},
		"a scrape cut short says what it gave": {
			scrapes: []scrape{cut("A"), ok("A"), ok()},
			said:    []string{"A"},
		},
		"two warnings, one fixed": {
			scrapes: []scrape{ok("A", "B"), ok("B"), ok("A", "B")},
			said:    []string{"A", "B", "A"},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var said []string
			s := newScrapeWarnings(func(w string) { said = append(said, w) })
			for i, sc := range tt.scrapes {
				notice, done := s.scrape()
				for _, w := range sc.warnings {
					notice("warning: %s", w)
				}
				distinct := map[string]bool{}
				for _, w := range sc.warnings {
					distinct[w] = true
				}
				if n := done(sc.complete); n != len(distinct) {
					t.Errorf("scrape %d gave %q: counted %d warnings, want %d", i+1, sc.warnings, n, len(distinct))
				}
			}
			var want []string
			for _, w := range tt.said {
				want = append(want, "warning: "+w)
			}
			if strings.Join(said, "|") != strings.Join(want, "|") {
				t.Errorf("said %q, want %q", said, want)
			}
		})
	}
}
