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
