package schedule

import "time"

// Skipped returns the wall times (zone-less, as UTC times, oldest first)
// that a spring-forward skipped at slot and the expression matches: the
// times cronie runs one by one after the change, which are all this one
// slot, as is the wall time at the change itself when it matches too
// (Matches): a slot is an instant. None when slot is not the instant of a
// change that skipped wall times, or the job has a wildcard minute or hour
// (which has no slot for skipped times).
func (s *Schedule) Skipped(slot time.Time) []time.Time {
	u := slot.Unix()
	p := s.periodAt(u)
	if !s.fixed || p.start != u || slot.Nanosecond() != 0 {
		return nil
	}
	q := s.periodAt(u - 1)
	if q.off >= p.off {
		return nil
	}
	var out []time.Time
	var c cursor
	for w, ok := s.nextWall(&c, u+q.off, u+p.off-1); ok; w, ok = s.nextWall(&c, w+60, u+p.off-1) {
		if !s.wallShown(w) {
			out = append(out, time.Unix(w, 0).UTC())
		}
	}
	return out
}

// cronieCatchUpPace is how far apart cronie's catch-up fires of a
// spring-forward gap come: it sleeps 10 s after each skipped minute in
// which it started a job.
const cronieCatchUpPace = 10 * time.Second

// catchUpSlack is what a catch-up fire may lag behind that pace (a loaded
// host, a slow fork) and still be one of them.
const catchUpSlack = time.Minute

// CatchUpWindow is how long after slot cronie's catch-up fires of the wall
// times a spring-forward skipped may come: 10 s for each minute of the gap,
// and a minute more. It is zero when slot merges no skipped time (Skipped).
// A fire of the slot in [slot, slot+window] is one of cronie's fires of it,
// not a retry by hand.
func (s *Schedule) CatchUpWindow(slot time.Time) time.Duration {
	if len(s.Skipped(slot)) == 0 {
		return 0
	}
	u := slot.Unix()
	gap := s.periodAt(u).off - s.periodAt(u-1).off // seconds the clocks went forward
	return time.Duration(gap/60)*cronieCatchUpPace + catchUpSlack
}
