package catchup

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/catchup/catchup/store"
)

// The hosts whose boots tell why a task's slot was missed are the same for
// every reader (S7d): the hosts that fired the task at or before the slot
// (a run the schedule triggered, store.Store.FirstFires: a replay, a
// backfill or a run by hand is no fire), else, when none had yet, every
// host whose boots the ledger holds. Never the reader's host for being the
// reader, nor the hosts of the runs a reader happened to read (from the
// watermark, which each scan moves, or of one slot): ls, scan, metrics,
// calendar and explain gave one slot different causes on different hosts,
// and before and after another host's scan.

// hostsOf is what the hosts counted for a task's slots come from.
type hostsOf struct {
	fired  map[string]time.Time // each host's first fire of the task
	ledger []string             // the hosts whose boots the ledger holds
}

// at returns the hosts counted for slot: those that fired the task at or
// before it, by name, else the ledger's.
func (h hostsOf) at(slot time.Time) []string {
	var out []string
	for host, first := range h.fired {
		if !first.After(slot) {
			out = append(out, host)
		}
	}
	if len(out) == 0 {
		return h.ledger
	}
	slices.Sort(out)
	return out
}

// all returns every host that may count for some slot of the task.
func (h hostsOf) all() []string {
	out := slices.Clone(h.ledger)
	for _, host := range slices.Sorted(maps.Keys(h.fired)) {
		out = appendNew(out, host)
	}
	return out
}

// firesOf is each host's first fire among runs.
func firesOf(runs []store.Run) map[string]time.Time {
	out := map[string]time.Time{}
	for _, r := range runs {
		if r.Trigger != store.TriggerSchedule || r.Host == "" {
			continue
		}
		at := r.Slot
		if at.IsZero() {
			at = r.StartedAt
		}
		if first, ok := out[r.Host]; !ok || at.Before(first) {
			out[r.Host] = at
		}
	}
	return out
}

// withFires is fired with the earlier fires of seen.
func withFires(fired, seen map[string]time.Time) map[string]time.Time {
	out := maps.Clone(fired)
	if out == nil {
		out = map[string]time.Time{}
	}
	for host, at := range seen {
		if first, ok := out[host]; !ok || at.Before(first) {
			out[host] = at
		}
	}
	return out
}

// forSlot is u with only the boots of the hosts counted for slot: the
// uptime slotCause and explain read the slot by.
func (u uptime) forSlot(slot time.Time) uptime {
	if u.hosts == nil {
		return u // every boot read counts (one host's own uptime)
	}
	counted := u.hosts.at(slot)
	out := uptime{starts: u.starts, hosts: u.hosts}
	for _, s := range u.up {
		if slices.Contains(counted, s.host) {
			out.up = append(out.up, s)
		}
	}
	for _, s := range u.clock {
		if slices.Contains(counted, s.host) {
			out.clock = append(out.clock, s)
		}
	}
	for k, st := range u.starts {
		if slices.Contains(counted, k[0]) && (out.earliest.IsZero() || st.at.Before(out.earliest)) {
			out.earliest = st.at
		}
	}
	return out
}

// prefetchFires reads the first fires of the tasks the cache does not
// hold yet (one read: FirstFires), and the ledger's hosts once.
func (c *bootCache) prefetchFires(ctx context.Context, tasks []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readFires(ctx, tasks)
}

// readFires is prefetchFires with c.mu held.
func (c *bootCache) readFires(ctx context.Context, tasks []string) error {
	if c.fires == nil {
		c.fires = map[string]map[string]time.Time{}
	}
	if c.ledger == nil {
		h, err := c.st.BootHosts(ctx)
		if err != nil {
			return err
		}
		c.ledger = append([]string{}, h...)
	}
	var missing []string
	for _, t := range tasks {
		if _, ok := c.fires[t]; !ok {
			missing = appendNew(missing, t)
		}
	}
	if len(missing) > 0 {
		// The fires of the hosts whose boots are held: a host without
		// boots adds none to a slot's uptime; its fires among the runs
		// a caller read still count (withFires).
		got, err := c.st.FirstFires(ctx, missing, c.ledger)
		if err != nil {
			return err
		}
		for _, t := range missing {
			c.fires[t] = got[t] // nil: no host fired it
		}
	}
	return nil
}

// taskUptime is the uptime task's causes are read from: the boots of the
// hosts that count for its slots (hostsOf), this host's current boot and
// its notes of unrecorded fires among them when it is one; seen are the
// fires among the task's runs the caller read (firesOf), with this host's
// notes: their fires count as the next scan records them.
func (c *bootCache) taskUptime(ctx context.Context, task string, seen map[string]time.Time) (uptime, error) {
	c.mu.Lock()
	err := c.readFires(ctx, []string{task})
	h := hostsOf{fired: withFires(c.fires[task], seen), ledger: c.ledger}
	c.mu.Unlock()
	if err != nil {
		return uptime{}, err
	}
	hosts := h.all()
	if err := c.prefetch(ctx, hosts); err != nil {
		return uptime{}, err
	}
	u, err := c.uptime(ctx, hosts)
	u.hosts = &h
	return u, err
}

// hostsOfTasks returns every host that may count for a slot of tasks, whose
// first fires the cache holds: for one read of their boots (prefetch).
func (c *bootCache) hostsOfTasks(tasks []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.ledger)
	for _, t := range tasks {
		for _, host := range slices.Sorted(maps.Keys(c.fires[t])) {
			out = appendNew(out, host)
		}
	}
	return out
}
