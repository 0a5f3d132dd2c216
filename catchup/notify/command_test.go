package notify

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestCommand(t *testing.T) {
	tests := map[string]struct {
		cmd     string
		env     []string
		wantOut string
		wantErr string
	}{
		"success":             {cmd: "echo alerted", wantOut: "alerted\n"},
		"environment":         {cmd: `echo "$CATCHUP_STATUS"`, env: []string{"CATCHUP_STATUS=failed"}, wantOut: "failed\n"},
		"stderr goes along":   {cmd: "echo oops >&2", wantOut: "oops\n"},
		"failure is reported": {cmd: "exit 3", wantErr: "notify command failed with exit 3"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := Command(context.Background(), tc.cmd, tc.env, &out, nil)
			if got := errText(err); got != tc.wantErr {
				t.Errorf("error %q, want %q", got, tc.wantErr)
			}
			if out.String() != tc.wantOut {
				t.Errorf("output %q, want %q", out.String(), tc.wantOut)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// An alert command exec refuses (here: an environment string over Linux's
// 128 KiB MAX_ARG_STRLEN) never ran: the error says so, not "exit 126".
func TestCommandThatCannotStart(t *testing.T) {
	var out bytes.Buffer
	err := Command(context.Background(), "echo alerted", []string{"CATCHUP_BIG=" + strings.Repeat("x", 200<<10)}, &out, nil)
	got := errText(err)
	if !strings.HasPrefix(got, "notify command could not start: ") || !strings.Contains(got, "argument list too long") ||
		strings.Contains(got, "exit 126") {
		t.Errorf("error %q, want it to say the command could not start, and why", got)
	}
	if out.Len() != 0 {
		t.Errorf("output %q, want none", out.String())
	}
}
