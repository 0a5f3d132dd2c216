package cmd

import (
	"fmt"
	"strconv"
	"time"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
)

// parseTime reads an RFC 3339 time as an operator gives one (--slot,
// --until, --from, --to, CATCHUP_NOW). Go's parser also takes a UTC offset
// of 24 hours (+24:00), which RFC 3339 has not, as the same wall time a
// day away: `run --slot ...T02:00:00+24:00` ran the previous day's slot.
// Such an offset is refused (errOffset), naming it.
func parseTime(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return t, err
	}
	if _, off := t.Zone(); off <= -24*3600 || off >= 24*3600 {
		return time.Time{}, errOffset{v[len(v)-6:]}
	}
	return t, nil
}

// errOffset is a UTC offset of a day or more.
type errOffset struct{ offset string }

func (e errOffset) Error() string {
	return fmt.Sprintf("its UTC offset %s is not one (RFC 3339 offsets run from -23:59 to +23:59; write the time in UTC, with Z)", e.offset)
}

// timeError is the error for v given as name that parseTime refused:
// the offset's own, else want (the form expected, with an example).
func timeError(name, v string, err error, want string) error {
	if e, ok := err.(errOffset); ok {
		return fmt.Errorf("invalid %s %s: %v", name, quotedValue(v), e)
	}
	return fmt.Errorf("invalid %s %s: %s", name, quotedValue(v), want)
}

// quotedValue is a value given to catchup as an error shows it: masked
// (redact.Value), quoted (%q), and when longer than 64 characters cut to
// those with its length (taskname.Quoted), so that one mistaken word never
// fills a screen.
func quotedValue(v string) string { return taskname.Quoted(redact.Value(v)) }

// shownValue is quotedValue for an error that shows a value bare
// (--timeout 5x: not a duration): bare as it was while short.
func shownValue(v string) string {
	m := redact.Value(v)
	if q := taskname.Quoted(m); q != strconv.Quote(m) {
		return q
	}
	return m
}
