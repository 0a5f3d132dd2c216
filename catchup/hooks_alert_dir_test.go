package catchup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/store"
)

// TestTaskAlertDir: a task's alert outside its run runs in its registered
// directory while it is trusted, else in this process's (never lost).
func TestTaskAlertDir(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	open := filepath.Join(base, "open")
	for _, d := range []string{home, open} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	m := Machine{UID: os.Getuid()}
	for _, tc := range []struct {
		name string
		dir  string
		want notify.As
	}{
		{name: "registered directory trusted", dir: home, want: notify.As{Dir: home}},
		{name: "none registered", dir: "", want: notify.As{}},
		{name: "gone since", dir: filepath.Join(base, "gone"), want: notify.As{}},
		{name: "writable by others", dir: open, want: notify.As{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := taskAlertDir(m, store.Task{Name: "a", Dir: tc.dir}); got != tc.want {
				t.Fatalf("taskAlertDir(%q) = %+v, want %+v", tc.dir, got, tc.want)
			}
		})
	}
}
