package crontab

import (
	"fmt"
	"io"
)

// MaxSize bounds what catchup reads of a crontab (scan, the daemon,
// `crontab wrap`): a crontab is a few KB, and a root scan reads every
// user's, so a user's sparse file of gigabytes (no disk used) must not
// cost the scan its memory.
const MaxSize = 16 << 20

// MaxCatchupLines bounds the catchup lines a crontab file may hold for
// scan and the readers to read it: cron itself loads at most 10,000
// entries of one crontab (cronie's MAX_USER_ENTRIES; Debian's crontab
// refuses more lines), and each catchup line costs a scan a registration
// and a replay plan (a user's crontab of 267,000 of them, 15 MB, under
// MaxSize, took a root scan minutes and gigabytes, at every scan). A
// daemon's crontab, every job line of which is a task, holds at most as
// many job lines (ParseJobsUpTo).
const MaxCatchupLines = 10000

// TooManyJobs says why a daemon's crontab of more than MaxCatchupLines job
// lines is refused, and the fix.
func TooManyJobs(path string) error {
	return fmt.Errorf("crontab %s holds more than %d job lines, the most cron loads of one crontab: none of them were read; "+
		"keep at most %d lines in it (give a job run often one line, not one per time)", path, MaxCatchupLines, MaxCatchupLines)
}

// ErrTooLarge is a crontab over MaxSize: none of it is used.
var ErrTooLarge = fmt.Errorf("it is larger than %d MiB, the most catchup reads of a crontab: none of its lines were read", MaxSize>>20)

// Read reads r to its end if that is at most MaxSize bytes, reading no
// more than one byte past it; a larger crontab is ErrTooLarge, nothing
// returned.
func Read(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	return data, nil
}
