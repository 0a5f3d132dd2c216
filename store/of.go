package store

import "time"

// Of is a task as the caller of a write of it read it (AddRunsOf,
// SetSettledOf): in its transaction, the write refuses the task no longer
// so, and writes nothing of it.
type Of struct {
	// Registered is its registration as read: a task the ledger no longer
	// holds, or holds registered after it (purged, then registered again
	// by a fire: a new task), is refused (ErrGone). Zero checks nothing,
	// Live neither.
	Registered time.Time
	// Live: the write is of the task in use, read not retired (a scan's
	// and a prune's records and watermark, the folds of a scan's coalesced
	// line, a scan's or a daemon's registration of a crontab line and a
	// schedule change's records): a task retired since (`catchup forget`) is refused too
	// (ErrRetired). The records of a task being retired (forget's, the
	// daemon's of a removed line, written after it retired the task) are
	// not Live.
	Live bool
}

// OfLive is Of the task registered at registered, read not retired.
func OfLive(registered time.Time) Of { return Of{Registered: registered, Live: true} }

// Refuses reports whether a write of o refuses the task whose row holds
// registration registered and retirement retired (zero: none): purged and
// registered again since (ErrGone), or retired since (ErrRetired); nil
// when it may be written. Both backends decide by it, on the row read in
// the write's transaction; a row not found they refuse as ErrGone.
func (o Of) Refuses(registered, retired time.Time) error {
	switch {
	case o.Registered.IsZero():
		return nil
	case registered.After(o.Registered):
		return ErrGone
	case o.Live && !retired.IsZero():
		return ErrRetired
	}
	return nil
}
