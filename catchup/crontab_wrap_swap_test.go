package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteWrappedOnlyTheFileItRead: root's `crontab wrap --in-place` of a
// crontab in a directory another user can write rewrites only the file it
// read, in the directory it read it from. The user swapped, between the
// read and the write, a symlink to root's secret for a file of theirs (the
// read followed the link: the backup, given the user's file's owner, held
// root's secret), or the crontab's directory for a symlink to another
// (root wrote and renamed there). Either swap now fails the write: nothing
// is written, the secret nowhere.
func TestWriteWrappedOnlyTheFileItRead(t *testing.T) {
	t.Parallel()
	tests := map[string]func(t *testing.T, top, path string){
		"a symlink to a secret swapped for a file": func(t *testing.T, top, path string) {
			secret := filepath.Join(top, "secret")
			if err := os.WriteFile(secret, []byte("SECRET\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, path); err != nil {
				t.Fatal(err)
			}
		},
		"the directory swapped for a symlink to another": func(t *testing.T, top, path string) {
			if err := os.WriteFile(path, []byte("SECRET\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, plant := range tests {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "cron")
			other := filepath.Join(top, "other")
			for _, d := range []string{dir, other} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "alice")
			plant(t, top, path)
			old, read, err := ReadToWrap(path)
			if err != nil || string(old) != "SECRET\n" {
				t.Fatalf("ReadToWrap = %q, %v", old, err)
			}
			// The swap, between the read and the write.
			users := "0 * * * * echo hi\n"
			if strings.HasPrefix(name, "a symlink") {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(users), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := os.WriteFile(filepath.Join(other, "alice"), []byte(users), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(dir, dir+".old"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, dir); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err = WriteWrapped(path, read, old, "wrapped\n", os.Geteuid())
			if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
				t.Errorf("err %v, want one saying the file changed since it was read", err)
			}
			for _, d := range []string{dir, other, dir + ".old"} {
				names, _ := os.ReadDir(d)
				for _, n := range names {
					b, _ := os.ReadFile(filepath.Join(d, n.Name()))
					if n.Name() != "alice" || string(b) == "wrapped\n" || strings.Contains(string(b), "SECRET") && d != dir+".old" {
						t.Errorf("%s/%s written: %q", filepath.Base(d), n.Name(), b)
					}
				}
			}
		})
	}
}
