package catchup

import (
	"strconv"
	"strings"
	"unicode"
)

// A daemon line's registered source names the host of the daemon that
// wrote the registration: "daemon:PATH:LINE host=NAME", then " uid=N" and
// RedactedMark as Source (catchup/daemon) gives them, and " pid=N" after
// the host: the daemon process. On a fleet's shared ledger the replicas
// read one line, each from its host's crontab: a replica whose line
// differs from the registration names the replica that registered it, and
// tells another's registration from its own (daemonLineDiffers).

const hostField = " host="

// daemonSourceOn is source, a daemon line's, naming host and pid as its
// registrant's (a host name that would not read back, with a space or a
// colon, is left out: PATH:LINE is read up to the last colon).
func daemonSourceOn(source, host string, pid int) string {
	if !strings.HasPrefix(source, "daemon:") || host == "" || strings.ContainsAny(host, ":") ||
		strings.IndexFunc(host, unicode.IsSpace) >= 0 {
		return source
	}
	base, tail := splitDaemonSource(source)
	return base + hostField + host + " pid=" + strconv.Itoa(pid) + tail
}

// splitDaemonSource splits a daemon line's source into "daemon:PATH:LINE"
// and what follows the host, if any: " uid=N", RedactedMark.
func splitDaemonSource(source string) (base, tail string) {
	base = source
	if b, ok := strings.CutSuffix(base, RedactedMark); ok {
		base, tail = b, RedactedMark
	}
	if i := strings.Index(base, " uid="); i >= 0 {
		base, tail = base[:i], base[i:]+tail
	}
	if i := strings.Index(base, hostField); i >= 0 {
		base = base[:i]
	}
	return base, tail
}

// daemonRegistrant is the host and pid of the daemon a daemon line's
// source names ("", 0 when none: a registration an older catchup wrote).
func daemonRegistrant(source string) (host string, pid int) {
	_, after, ok := strings.Cut(strings.TrimSuffix(source, RedactedMark), hostField)
	if !ok {
		return "", 0
	}
	host, after, _ = strings.Cut(after, " ")
	if p, ok := strings.CutPrefix(after, "pid="); ok {
		p, _, _ = strings.Cut(p, " ")
		pid, _ = strconv.Atoi(p)
	}
	return host, pid
}

// sameSourceBesideHost reports whether sources a and b are the same but
// for the host they name: another replica's registration of an unchanged
// line writes nothing, and the ledger keeps the host whose registration
// last changed it.
func sameSourceBesideHost(a, b string) bool {
	if !strings.HasPrefix(a, "daemon:") || !strings.HasPrefix(b, "daemon:") {
		return a == b
	}
	ab, at := splitDaemonSource(a)
	bb, bt := splitDaemonSource(b)
	return ab == bb && at == bt
}
