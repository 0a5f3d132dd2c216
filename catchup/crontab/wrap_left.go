package crontab

import (
	"errors"
	"fmt"
	"strings"

	"github.com/catchup/catchup/catchup/taskname"
)

// notAJob says why Wrap left line s (trimmed; no blank line, comment,
// variable or @reboot line) that jobCommand does not read as a job line:
// too few time fields, a macro catchup does not know, no command, or no
// cron line at all. Before, such a line was kept without a word, and the
// crontab taken for wrapped.
func notAJob(s string, system bool) error {
	s = strings.TrimPrefix(s, "-") // cron's "no syslog" mark
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return errors.New("no cron job line, variable (NAME=value) or comment")
	}
	nHead := 5
	if strings.HasPrefix(fields[0], "@") {
		if !isMacro(fields[0]) {
			return fmt.Errorf("unknown macro %s: catchup knows @hourly, @daily (@midnight), @weekly, @monthly and @yearly (@annually)", taskname.Quoted(fields[0]))
		}
		nHead = 1
	} else {
		n := 0
		for n < len(fields) && n < 5 && timeLike(fields[n]) {
			n++
		}
		switch {
		case n == 0:
			return errors.New("no cron job line, variable (NAME=value) or comment: a job line is 5 time fields (or @hourly, @daily...) then the command")
		case n < 5:
			return timeFieldCount(n, "the command")
		}
	}
	if system {
		nHead++
	}
	if len(fields) <= nHead {
		if system && len(fields) == nHead {
			return fmt.Errorf("no command after the user field %q: is this a user crontab? (then read it without --system)", Redacted(fields[nHead-1]))
		}
		return errors.New("no command after the time fields")
	}
	return errors.New("no cron job line cron and catchup agree on")
}

// refusedCatchupLine is why scan and catchup daemon refuse line, which
// runs catchup already and so is kept as it is by Wrap; nil when they read
// it.
func refusedCatchupLine(line string, system bool, knownUser func(string) bool) error {
	e, ok, err := parseJob(strings.TrimLeft(cString(line), " \t"), system)
	if err != nil || !ok {
		return err
	}
	return wrappable(e, system, knownUser)
}
