package catchup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/store"
)

// TestOwedAlertDir: an owed alert is paid where it would have run, the
// directory its file keeps (while still trusted: else the payer's own,
// never lost); a file of an older catchup, which keeps none, where the
// payer used to run it: a fire's in the task's registered directory, a
// scan's in it for the task's own command only.
func TestOwedAlertDir(t *testing.T) {
	base := t.TempDir()
	fire, reg, open := filepath.Join(base, "fire"), filepath.Join(base, "reg"), filepath.Join(base, "open")
	for _, d := range []string{fire, reg, open} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	m := Machine{UID: os.Getuid()}
	task := store.Task{Name: "job", Dir: reg, NotifyCmd: "./alert.sh"}
	run := &owedRun{ID: 1, Status: store.StatusFailed}
	for name, tc := range map[string]struct {
		a    owedAlert
		gone bool
		want notify.As
	}{
		"fire's directory kept":             {a: owedAlert{Task: "job", Cmd: "./alert.sh", Run: run, Dir: fire}, want: notify.As{Dir: fire}},
		"fire's directory kept, task gone":  {a: owedAlert{Task: "job", Cmd: "./alert.sh", Run: run, Dir: fire}, gone: true, want: notify.As{Dir: fire}},
		"masked command's directory kept":   {a: owedAlert{Task: "job", Cmd: "./alert.sh --token=S3cret", Dir: reg}, want: notify.As{Dir: reg}},
		"scan's own directory kept":         {a: owedAlert{Task: "job", Cmd: "./scan-alert.sh", Dir: fire}, want: notify.As{Dir: fire}},
		"kept directory writable by others": {a: owedAlert{Task: "job", Cmd: "./alert.sh", Run: run, Dir: open}, want: notify.As{}},
		"kept directory gone":               {a: owedAlert{Task: "job", Cmd: "./alert.sh", Dir: filepath.Join(base, "gone")}, want: notify.As{}},
		"older fire's file":                 {a: owedAlert{Task: "job", Cmd: "./other.sh", Run: run}, want: notify.As{Dir: reg}},
		"older file, task's own command":    {a: owedAlert{Task: "job", Cmd: "./alert.sh"}, want: notify.As{Dir: reg}},
		"older file, scan's command":        {a: owedAlert{Task: "job", Cmd: "./scan-alert.sh"}, want: notify.As{}},
		"older file, task gone":             {a: owedAlert{Task: "job", Cmd: "./alert.sh", Run: run}, gone: true, want: notify.As{}},
	} {
		t.Run(name, func(t *testing.T) {
			if got := owedAlertDir(m, tc.a, task, !tc.gone); got != tc.want {
				t.Fatalf("owedAlertDir(%+v) = %+v, want %+v", tc.a, got, tc.want)
			}
		})
	}
}
