package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCronDirBesideIsTheOneTheWalkSaw: a user whose crontab is in a
// cron.d directory of theirs (~/cron.d) keeps exchanging that directory
// with a symlink of theirs to a directory of root's that they cannot read.
// Root's scan reads the crontab through the directory (OpenCrontab's walk
// refuses the symlink), then looks at the files beside it for duplicates
// of its commands: it must look in the directory the walk went through,
// never open the path again and list and read root's directory through
// the user's symlink (its warnings told which of root's files run which
// command; the user chose both the command and the directory).
func TestCronDirBesideIsTheOneTheWalkSaw(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it gives files to another user")
	}
	const nobody = 65534
	top := t.TempDir()
	os.Chmod(top, 0o755)
	home, secret := filepath.Join(top, "home"), filepath.Join(top, "secret")
	for _, d := range []string{home, secret} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	chown(t, home, nobody)
	cronD, link := filepath.Join(home, "cron.d"), filepath.Join(home, "link")
	if err := os.Mkdir(cronD, 0o700); err != nil {
		t.Fatal(err)
	}
	chown(t, cronD, nobody)
	path := filepath.Join(cronD, "jobs")
	if err := os.WriteFile(path, []byte("0 * * * * catchup run --task t -- /opt/job.sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chown(t, path, nobody)
	if err := os.WriteFile(filepath.Join(secret, "roots"), []byte("0 * * * * /opt/job.sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	chown(t, link, nobody)

	stop := keepExchanging(cronD, link) // nobody's side: their cron.d and their symlink
	misread, read, tries := 0, 0, 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && tries < 3000; tries++ {
		c := newCrontabs(Machine{})
		if r := c.file(path); r.err == nil {
			read++
		}
		for _, w := range c.warnings {
			if strings.Contains(w, "roots") {
				misread++
			}
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if misread > 0 {
		t.Fatalf("%d of %d scans (%d read the crontab) listed and read root's directory through nobody's symlink, beside nobody's crontab",
			misread, tries, read)
	}
}
