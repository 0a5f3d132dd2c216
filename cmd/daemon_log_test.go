package cmd

import (
	"bytes"
	"log/slog"
	"testing"
)

// TestLogRecordsStartOnTheirOwnLine: a job's output that ends mid-line
// does not swallow the daemon's next log record.
func TestLogRecordsStartOnTheirOwnLine(t *testing.T) {
	var buf bytes.Buffer
	out := &lineWriter{w: &buf}
	log := slog.New(slog.NewJSONHandler(out.records(), &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	out.Write([]byte("progress: half... "))
	log.Info("job started")
	out.Write([]byte("done\n"))
	log.Info("job ended")
	want := "progress: half... \n{\"level\":\"INFO\",\"msg\":\"job started\"}\ndone\n{\"level\":\"INFO\",\"msg\":\"job ended\"}\n"
	if got := buf.String(); got != want {
		t.Errorf("stderr:\n%q\nwant\n%q", got, want)
	}
}
