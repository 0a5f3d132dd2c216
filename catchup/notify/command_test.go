package notify

import (
	"bytes"
	"context"
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
		"failure is reported": {cmd: "exit 3", wantErr: "notify command failed with exit 3 (the job's status is unchanged)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := Command(context.Background(), tc.cmd, tc.env, &out)
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
