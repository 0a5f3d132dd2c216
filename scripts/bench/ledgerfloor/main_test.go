package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRun(t *testing.T) {
	tests := map[string]struct {
		argv []string
		want int
	}{
		"success":           {[]string{"true"}, 0},
		"the command's own": {[]string{"sh", "-c", "exit 3"}, 3},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ledger := filepath.Join(t.TempDir(), "ledger.db")
			for i := range 2 { // a new ledger, then an existing one
				if got := run(append([]string{ledger}, tc.argv...)); got != tc.want {
					t.Fatalf("run %d of %q = %d, want %d", i+1, tc.argv, got, tc.want)
				}
			}
			db, err := sql.Open("sqlite", ledger)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n, code int
			if err := db.QueryRow(`SELECT count(*), max(exit_code) FROM runs WHERE status = 'finished'`).Scan(&n, &code); err != nil {
				t.Fatal(err)
			}
			if n != 2 || code != tc.want {
				t.Errorf("the ledger holds %d finished runs with exit code %d, want 2 with %d", n, code, tc.want)
			}
		})
	}
}

func TestRunSkipsWhenTheLockIsHeld(t *testing.T) {
	ledger := filepath.Join(t.TempDir(), "ledger.db")
	f, err := os.Create(ledger + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "ran")
	if got := run([]string{ledger, "touch", ran}); got != 75 {
		t.Errorf("run with the lock held = %d, want 75", got)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran although the lock was held")
	}
}
