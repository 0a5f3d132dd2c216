package catchup

import (
	"context"
	"slices"

	"github.com/catchup/catchup/store"
)

// sighting is the boot a fire note saw: a fire that could not reach the
// ledger proves its boot up when it fired, as a claim does (S7d). A note
// without a boot id (not Linux) saw none.
func (e spoolEntry) sighting() (store.Boot, bool) {
	if e.Host == "" || e.BootID == "" {
		return store.Boot{}, false
	}
	b := store.Boot{Host: e.Host, ID: e.BootID, FirstSeen: e.StartedAt, LastSeen: e.StartedAt}
	if !e.BootTime.After(e.StartedAt) {
		b.Time = e.BootTime
	}
	return b, true
}

// recordNoteSightings records the boots the fire notes a scan recorded saw.
// A failure only says so: the notes are recorded, and only a reboot before
// the next sighting of the boot can make its slots read host-down.
func recordNoteSightings(ctx context.Context, st store.Store, m Machine, entries []spoolEntry) {
	for _, e := range entries {
		if b, ok := e.sighting(); ok {
			if err := st.SeeBoot(ctx, b); err != nil {
				m.notice("cannot record the boot a noted fire saw: %v", err)
				return
			}
		}
	}
}

// with makes the cache's uptimes count this host's notes of unrecorded
// fires as sightings of their boots, as the next scan records them.
func (c *bootCache) with(n *pendingNotes) *bootCache {
	c.notes = n
	return c
}

// withNoteSightings adds to boots the sightings of the fire notes of
// hosts, merged as the ledger merges a sighting (store.Store.SeeBoot): into
// the latest span of its boot with the same boot time, else a new span.
func withNoteSightings(boots []store.Boot, n *pendingNotes, hosts []string) []store.Boot {
	if n == nil || len(n.fires) == 0 {
		return boots
	}
	out := append([]store.Boot(nil), boots...)
	for _, e := range n.fires {
		b, ok := e.sighting()
		if !ok || !slices.Contains(hosts, b.Host) {
			continue
		}
		merged := false
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].Host != b.Host || out[i].ID != b.ID {
				continue
			}
			if out[i].SameSpan(b.ID, b.Time) {
				if b.FirstSeen.Before(out[i].FirstSeen) {
					out[i].FirstSeen = b.FirstSeen
				}
				if b.LastSeen.After(out[i].LastSeen) {
					out[i].LastSeen = b.LastSeen
				}
				if out[i].Time.IsZero() {
					out[i].Time = b.Time
				}
				merged = true
			}
			break
		}
		if !merged {
			out = append(out, b)
		}
	}
	return out
}
