package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestCheckedPing: a --ping that is not an http(s) URL with a host is a
// warning at the fire (naming no part of it: it may hold a token), and no
// ping; the job still runs.
func TestCheckedPing(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"https":        {"https://hc.example/ping/TOKEN", "https://hc.example/ping/TOKEN"},
		"http":         {"http://127.0.0.1:8080/p", "http://127.0.0.1:8080/p"},
		"none":         {"", ""},
		"no scheme":    {"notaurl-TOKEN", ""},
		"other scheme": {"ftp://hc.example/TOKEN", ""},
		"no host":      {"https:///TOKEN", ""},
	} {
		t.Run(name, func(t *testing.T) {
			var warn bytes.Buffer
			got := checkedPing(tc.in, &warn)
			if got != tc.want {
				t.Errorf("checkedPing(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if (tc.want == "" && tc.in != "") != (warn.Len() > 0) || strings.Contains(warn.String(), "TOKEN") {
				t.Errorf("warning %q", warn.String())
			}
		})
	}
}
