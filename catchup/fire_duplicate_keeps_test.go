package catchup

import (
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestRegistrationDiffersNamesNoValue: a duplicate fire's line names what
// differs from the registration it leaves, never a value (a command or a
// --notify-cmd may carry a secret).
func TestRegistrationDiffersNamesNoValue(t *testing.T) {
	reg := store.Task{Argv: []string{"backup", "--password", "S3cret"}, Dir: "/srv", Replay: "all", NotifyCmd: "page --token=T0ken",
		Timeout: time.Hour}
	tests := map[string]struct {
		change func(*store.Task)
		want   string
	}{
		"same":      {func(*store.Task) {}, ""},
		"command":   {func(r *store.Task) { r.Argv = []string{"backup", "--password", "0ther"} }, "command differs"},
		"two":       {func(r *store.Task) { r.Dir, r.NotifyCmd = "/tmp", "page --token=0ther" }, "directory and --notify-cmd differ"},
		"three":     {func(r *store.Task) { r.Argv, r.Timeout, r.OnBusy = nil, 0, "skip" }, "command, --timeout and --on-busy differ"},
		"max age":   {func(r *store.Task) { r.MaxAge = time.Hour }, "--max-age differs"},
		"no values": {func(r *store.Task) { r.Retries, r.NoCapture = 3, true }, "--retries and --no-capture differ"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			row := reg
			row.Argv = append([]string(nil), reg.Argv...)
			tc.change(&row)
			if got := registrationDiffers(reg, row); got != tc.want {
				t.Errorf("registrationDiffers = %q, want %q", got, tc.want)
			}
		})
	}
}
