package catchup

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestCauseFromTheHostsThatFired: a slot's cause is read from the boots of
// the hosts that fired the task at or before it, else of every host whose
// boots the ledger holds; a host's own current boot, reading, counts only
// when that host counts.
func TestCauseFromTheHostsThatFired(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time { return mustTime(t, s) }
	boot := func(host, id, from, to string) store.Boot {
		return store.Boot{Host: host, ID: id, Time: at(from), FirstSeen: at(from), LastSeen: at(to)}
	}
	boots := []store.Boot{
		boot("a", "a1", "2026-11-01T00:00:00Z", "2026-11-10T02:00:00Z"), // then down
		boot("a", "a2", "2026-11-13T01:00:00Z", "2026-11-16T08:00:00Z"),
		boot("b", "b1", "2026-11-01T00:00:00Z", "2026-11-16T10:00:00Z"), // up throughout
		boot("c", "c1", "2026-11-05T00:00:00Z", "2026-11-16T10:00:00Z"), // never fires
	}
	for _, tc := range []struct {
		name    string
		fired   map[string]time.Time
		current store.Boot // the reading host's boot, now
		slot    string
		want    string
	}{
		{"no host fired yet: every host of the ledger", nil, store.Boot{}, "2026-11-09T02:00:00Z", CauseNotFired},
		{"no host fired yet, before every boot", nil, store.Boot{}, "2026-10-30T02:00:00Z", CauseUnknown},
		{"a alone fired, and was down", map[string]time.Time{"a": at("2026-11-10T02:00:00Z")}, store.Boot{}, "2026-11-11T02:00:00Z", CauseHostDown},
		{"b up but fired only later", map[string]time.Time{"a": at("2026-11-10T02:00:00Z"), "b": at("2026-11-14T02:00:00Z")},
			store.Boot{}, "2026-11-12T02:00:00Z", CauseHostDown},
		{"a's next boot started before the slot, seen after it", map[string]time.Time{"a": at("2026-11-10T02:00:00Z")},
			store.Boot{}, "2026-11-13T02:00:00Z", CauseNotFired},
		{"b fired before, up", map[string]time.Time{"a": at("2026-11-10T02:00:00Z"), "b": at("2026-11-14T02:00:00Z")},
			store.Boot{}, "2026-11-15T02:00:00Z", CauseNotFired},
		{"a fired before the ledger's first boot of it", map[string]time.Time{"a": at("2026-10-20T02:00:00Z")},
			store.Boot{}, "2026-10-25T02:00:00Z", CauseUnknown},
		{"the reader, which never fired, up now", map[string]time.Time{"a": at("2026-11-10T02:00:00Z")},
			store.Boot{Host: "c", ID: "c1", Time: at("2026-11-05T00:00:00Z"), FirstSeen: at("2026-11-20T00:00:00Z"), LastSeen: at("2026-11-20T00:00:00Z")},
			"2026-11-11T02:00:00Z", CauseHostDown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := buildUptime(boots, tc.current)
			u.hosts = &hostsOf{fired: tc.fired, ledger: []string{"a", "b", "c"}}
			if got := causeOf(at(tc.slot), nil, nil, u); got != tc.want {
				t.Errorf("cause of %s = %s, want %s (counted: %v)", tc.slot, got, tc.want, u.hosts.at(at(tc.slot)))
			}
		})
	}
}
