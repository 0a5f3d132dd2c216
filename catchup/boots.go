package catchup

import (
	"context"
	"sync"
	"time"

	"github.com/catchup/catchup/store"
)

// sighting is this host's boot as seen now, for the ledger's boot record:
// the boot time only when it is known and not later than now (a clock moved
// back past the boot cannot place it).
func (m Machine) sighting() store.Boot {
	now := m.Now()
	b := store.Boot{Host: m.Host, ID: m.BootID, FirstSeen: now, LastSeen: now}
	if !m.BootTime.IsZero() && !m.BootTime.After(now) {
		b.Time = m.BootTime
	}
	return b
}

// seeBoot records that this boot of this host is up now. Without a boot id
// (not Linux) there is nothing to record.
func seeBoot(ctx context.Context, st store.Store, m Machine) error {
	if m.BootID == "" {
		return nil
	}
	return st.SeeBoot(ctx, m.sighting())
}

// seeBootOrSay records this boot's sighting for a fire that records a run
// without a claim (a lock skip, a paused slot): the fire proves the boot up
// now (S7d). A failure only says so: the fire's own record matters more.
func seeBootOrSay(ctx context.Context, st store.Store, m Machine) {
	if err := seeBoot(ctx, st, m); err != nil {
		m.notice("cannot record this boot's sighting: %v", err)
	}
}

// bootCache reads the boots of each host once per command.
type bootCache struct {
	st     store.Store
	m      Machine
	mu     sync.Mutex // scans of several tasks at once (--concurrency) share it
	byHost map[string][]store.Boot
	notes  *pendingNotes                   // this host's notes of unrecorded fires, counted as sightings (with)
	fires  map[string]map[string]time.Time // task -> each host's first fire of it (FirstFires)
	ledger []string                        // the hosts whose boots the ledger holds, once read
}

func newBootCache(st store.Store, m Machine) *bootCache {
	return &bootCache{st: st, m: m, byHost: map[string][]store.Boot{}}
}

// uptime is what the ledger knows of when hosts were up, with this host's
// current boot reaching now.
func (c *bootCache) uptime(ctx context.Context, hosts []string) (uptime, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var all []store.Boot
	for _, h := range hosts {
		if h == "" {
			continue
		}
		b, ok := c.byHost[h]
		if !ok {
			var err error
			if b, err = c.st.Boots(ctx, h); err != nil {
				return uptime{}, err
			}
			c.byHost[h] = b
		}
		all = append(all, b...)
	}
	all = withNoteSightings(all, c.notes, hosts)
	cur := store.Boot{}
	if c.m.BootID != "" {
		cur = c.m.sighting()
	}
	return buildUptime(all, cur), nil
}

// prefetch reads the boots of the hosts the cache does not hold yet, in one
// read of the ledger (BootsOf), so that the uptimes asked of them next read
// nothing.
func (c *bootCache) prefetch(ctx context.Context, hosts []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var missing []string
	for _, h := range hosts {
		if _, ok := c.byHost[h]; !ok && h != "" {
			missing = append(missing, h)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	got, err := c.st.BootsOf(ctx, missing)
	if err != nil {
		return err
	}
	for _, h := range missing {
		c.byHost[h] = got[h]
	}
	return nil
}
