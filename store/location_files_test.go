package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLocationReadsNoFileOfTheURL: naming a PostgreSQL ledger (its
// identity, its printed name, checking that it parses) opens no file its
// URL names: sslrootcert, sslcert, sslkey, passfile, servicefile. A root
// scan names the ledger of every other user's crontab line that way
// (CATCHUP_DB=, --db): before, a user's line naming a FIFO of theirs as
// its sslrootcert held root's scan in open(2) forever (SIGTERM did not
// end it), /dev/zero filled its memory, and a file missing there made the
// line's ledger no ledger (refused as another one); the connect itself, where
// the files matter, is the line's own catchup run's, as that user.
func TestLocationReadsNoFileOfTheURL(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const base = "postgres://u@db.example:5433/app?search_path=s"
	want := "db.example:5433/app?search_path=s"
	for name, tc := range map[string]struct {
		param string
		named bool // a service's settings come from a file: named only when root has it
	}{
		"sslrootcert":         {param: "&sslmode=verify-ca&sslrootcert=" + fifo},
		"sslcert and sslkey":  {param: "&sslmode=require&sslcert=" + fifo + "&sslkey=" + fifo},
		"passfile":            {param: "&passfile=" + fifo},
		"servicefile":         {param: "&service=catchup-no-such-service&servicefile=" + fifo, named: true},
		"sslrootcert missing": {param: "&sslmode=verify-full&sslrootcert=" + fifo + ".gone"},
	} {
		param := tc.param
		t.Run(name, func(t *testing.T) {
			done := make(chan string, 1)
			go func() {
				l, err := ParseLocation(base + param)
				if err != nil {
					done <- "ParseLocation: " + err.Error()
					return
				}
				done <- l.Identity() + " " + l.Redacted()
			}()
			select {
			case got := <-done:
				if !tc.named && got != want+" "+want {
					t.Errorf("identity and name %q; want %q twice", got, want)
				}
			case <-time.After(10 * time.Second):
				// Let the open that waits for a writer end.
				if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
					f.Close()
				}
				t.Fatalf("naming %s opened the file its URL names (still waiting after 10 s)", base+param)
			}
		})
	}
}
