package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFileStampsSeeAFileSwapped: a crontab replaced by another of the same
// size, modification time, mode and owner is a change: a file renamed over
// it (a Nix profile or an image's files, whose times are all the same, a
// `cp -p` or `install -p` then `mv`), or one rewritten in place with its
// time put back (`touch -r`). Before, the stamp read the same, and the
// daemon ran the old lines until a SIGHUP or a restart.
func TestFileStampsSeeAFileSwapped(t *testing.T) {
	t.Parallel()
	old, edited := []byte("0 2 * * * /opt/a.sh\n"), []byte("0 3 * * * /opt/a.sh\n")
	when := time.Date(1970, 1, 1, 0, 0, 1, 0, time.UTC) // a Nix store's time
	for name, change := range map[string]func(t *testing.T, p string){
		"renamed over": func(t *testing.T, p string) {
			n := p + ".new"
			must(t, os.WriteFile(n, edited, 0o644))
			must(t, os.Chtimes(n, when, when))
			must(t, os.Rename(n, p))
		},
		"rewritten, its time put back": func(t *testing.T, p string) {
			must(t, os.WriteFile(p, edited, 0o644))
			must(t, os.Chtimes(p, when, when))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "crontab")
			must(t, os.WriteFile(p, old, 0o644))
			must(t, os.Chtimes(p, when, when))
			before := Stamp([]string{p})
			change(t, p)
			if after := Stamp([]string{p}); after == before {
				t.Errorf("Stamp did not change with the file's content: %q", after)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
