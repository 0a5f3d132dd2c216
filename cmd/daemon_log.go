package cmd

import (
	"io"
	"log/slog"
	"sync"
	"time"
)

// lineWriter is the daemon's stderr, shared by its jobs' output and its
// log: it remembers whether the last byte written ended a line, so that a
// log record written through records() starts on a line of its own (a job
// that printed "half... " without a newline would glue the next record to
// it, and a collector could not parse it).
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	midLine bool // the last byte written was not '\n'
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if n > 0 {
		l.midLine = p[n-1] != '\n'
	}
	return n, err
}

// Underlying is the stderr itself, for a job whose output is not captured
// (--no-capture): it gets the file, as run gives it.
func (l *lineWriter) Underlying() io.Writer { return l.w }

// records is the writer for log records: each Write is one record, begun
// on a new line if the output before it left one open.
func (l *lineWriter) records() io.Writer { return recordWriter{l} }

type recordWriter struct{ l *lineWriter }

func (r recordWriter) Write(p []byte) (int, error) {
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	if r.l.midLine {
		if _, err := r.l.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
	}
	n, err := r.l.w.Write(p)
	if n > 0 {
		r.l.midLine = p[n-1] != '\n'
	}
	return n, err
}

// logClock stamps each log record with the daemon's clock, the one its
// fires and slots read (CATCHUP_NOW, or the test minute), not slog's
// time.Now(): under an injected clock a record said the machine's real
// time beside slots of the clock's.
func logClock(now func() time.Time) *slog.HandlerOptions {
	return &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			a.Value = slog.TimeValue(now())
		}
		return a
	}}
}
