package catchup

import (
	"bytes"
	"fmt"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/internal/filetrust"
)

// parseCapped parses crontab f, read at path, into r, no further than
// crontab.MaxCatchupLines catchup lines: a file with more is refused
// whole (one warning naming it and the fix, none of its lines used), as
// a file over crontab.MaxSize is. Whatever else the scan reads is read
// all the same.
func (c *crontabs) parseCapped(r *crontabRead, path string, f CrontabFile) {
	var more bool
	r.entries, r.errs, more = crontab.ParseUpTo(bytes.NewReader(f.Data), path, f.System, crontab.MaxCatchupLines)
	if !more {
		return
	}
	r.entries, r.errs = nil, nil
	r.err = &filetrust.Refusal{Name: "crontab " + path,
		Reason: fmt.Sprintf("it holds more than %d catchup lines, the most cron loads of one crontab: none of them were read", crontab.MaxCatchupLines),
		Fix:    fmt.Sprintf("keep at most %d catchup lines in %s (give a job run often one line, not one per time)", crontab.MaxCatchupLines, path)}
	c.refused++
	c.warnings = append(c.warnings, r.err.Error())
}
