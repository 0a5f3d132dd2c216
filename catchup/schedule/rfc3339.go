package schedule

import "time"

// RFC3339 renders t in loc in RFC 3339, or in UTC when loc's offset at t
// is one RFC 3339 cannot write: an offset with seconds (a zone's local mean
// time before 1972, Africa/Monrovia's -00:44:30, which Format writes as
// -00:44, naming an instant 30 s off) or of 24 hours or more (a POSIX zone
// like <+24>-24; RFC 3339's offset hours stop at 23). The string always
// names the instant t.
func RFC3339(t time.Time, loc *time.Location) string {
	if loc != nil {
		t = t.In(loc)
	}
	if _, off := t.Zone(); off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		t = t.UTC()
	}
	return t.Format(time.RFC3339)
}
