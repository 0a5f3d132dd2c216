package crontab

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ParseUpTo is Parse reading no further than the catchup line (a line
// or a malformed line's error) past the first most of them: more says that
// there are more than most, and what it returns is then only what it read
// (a crontab of hundreds of thousands of catchup lines cost a scan seconds
// and hundreds of MB to parse only to refuse it). A negative most reads
// the whole crontab.
func ParseUpTo(r io.Reader, name string, system bool, most int) (entries []Entry, errs []error, more bool) {
	var env variables
	err := eachLine(r, name, func(lineNo int, line string, tooLong bool) bool {
		if tooLong {
			if strings.Contains(line, "catchup") {
				errs = append(errs, &Error{File: name, Line: lineNo,
					Err: fmt.Errorf("line longer than %d bytes; skipped", maxLine)})
			}
		} else if e, ok, err := parseLine(line, system, &env); err != nil {
			errs = append(errs, &Error{File: name, Line: lineNo, Err: err})
		} else if ok {
			e.File, e.Line = name, lineNo
			entries = append(entries, e)
		}
		more = most >= 0 && len(entries)+len(errs) > most
		return !more
	})
	if err != nil {
		errs = append(errs, err)
	}
	return entries, errs, more
}

// eachLine calls fn with every line of the crontab r, numbered from 1 and
// cut at a NUL (cron reads lines as C strings), until fn returns false;
// tooLong marks a line longer than maxLine, of which the first maxLine
// bytes are given. A read error ends it, returned as a *Error for the line
// being read.
func eachLine(r io.Reader, name string, fn func(lineNo int, line string, tooLong bool) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, tooLong, last, err := readLine(br)
		if err != nil {
			return &Error{File: name, Line: lineNo, Err: fmt.Errorf("read crontab: %w", err)}
		}
		if !fn(lineNo, cString(line), tooLong) || last {
			return nil
		}
	}
}
