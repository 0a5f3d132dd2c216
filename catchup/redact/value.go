package redact

import (
	"strconv"
	"strings"
)

// Value is a value given to one of catchup's own flags as an error or a
// warning may quote it: the one word masked as Argv masks an argv's word.
// A value lands there by mistake (a crontab line's PGPASSWORD=X written
// after a flag, a flag's own value forgotten), so a secret-shaped one is
// shown masked (PGPASSWORD=***, https://u:***@h); any other is left as
// given, for the user to see the mistake (5x, Mars/Base).
func Value(v string) string {
	return Argv([]string{v})[0]
}

// ValueIn is msg with each quoting of v in it, as given or as %q quotes
// it, replaced by Value's: for a message built by another's code that
// quotes the value it refused. msg is returned as it is when v holds no
// secret.
func ValueIn(msg, v string) string {
	shown := Value(v)
	if shown == v {
		return msg
	}
	msg = strings.ReplaceAll(msg, strconv.Quote(v), strconv.Quote(shown))
	return strings.ReplaceAll(msg, v, shown)
}
