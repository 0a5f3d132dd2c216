package schedule

import (
	"path/filepath"
	"strings"
	"time"
)

// The span over which two zones must agree to be one zone (SameZone):
// every instant from the start of Unix time, before which no ledger holds
// a slot, to well past any slot a task will have. Zone files that differ
// in their abbreviations alone (Etc/GMT and Etc/UTC), or in their history
// before 1970 (which tzdata builds keep or merge into links: Africa/Accra
// and Africa/Abidjan), put every slot of a schedule at the same instant.
var (
	sameZoneFrom = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	sameZoneTo   = time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)
)

// zoneOf is the zone a name names for SameZone: its zone file's (data, as
// zoneFile read it), else the POSIX TZ string it is; nil for no zone ("",
// Local, a path, a name of neither kind).
func zoneOf(name string, data []byte) *time.Location {
	if data != nil {
		loc, err := time.LoadLocationFromTZData(name, data)
		if err != nil {
			return nil
		}
		return loc
	}
	if name == "" || name == "Local" || filepath.IsAbs(name) || strings.Contains(name, "..") {
		return nil
	}
	loc, err := posixZone(name)
	if err != nil {
		return nil
	}
	return loc
}

// sameOffsets reports whether zones a and b give every instant of
// [sameZoneFrom, sameZoneTo) the same offset from UTC, so the same wall
// clock: every slot of a schedule falls at the same instant in both, DST
// changes included. It walks the periods of both zones (ZoneBounds), a
// few a year at most.
func sameOffsets(a, b *time.Location) bool {
	for t := sameZoneFrom; t.Before(sameZoneTo); {
		ta, tb := t.In(a), t.In(b)
		_, oa := ta.Zone()
		_, ob := tb.Zone()
		if oa != ob {
			return false
		}
		_, ea := ta.ZoneBounds()
		_, eb := tb.ZoneBounds()
		next := sameZoneTo
		if !ea.IsZero() && ea.Before(next) {
			next = ea
		}
		if !eb.IsZero() && eb.Before(next) {
			next = eb
		}
		if !next.After(t) {
			return false // no way on: call them different
		}
		t = next
	}
	return true
}
