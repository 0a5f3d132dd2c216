package filetrust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSwappable: a directory on a file's path that another user can write
// (without the sticky bit) or owns is named, the nearest to the file
// first; a sticky one, or one of this user's writable by no one else, is
// not; nor is the file's own mode looked at.
func TestSwappable(t *testing.T) {
	for name, tc := range map[string]struct {
		top, sub os.FileMode
		owner    int // of sub; -1 this user's
		want     string
	}{
		"private":             {top: 0o755, sub: 0o700, owner: -1},
		"file's own writable": {top: 0o755, sub: 0o777, owner: -1, want: "sub: writable by others (mode 0777)"},
		"above it writable":   {top: 0o777, sub: 0o755, owner: -1, want: "top: writable by others (mode 0777)"},
		"nearest first":       {top: 0o777, sub: 0o757, owner: -1, want: "sub: writable by others (mode 0757)"},
		"sticky":              {top: 0o1777, sub: 0o755, owner: -1},
		"another user's":      {top: 0o755, sub: 0o755, owner: 65534, want: "sub: owned by uid 65534"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.owner >= 0 && os.Geteuid() != 0 {
				t.Skip("it gives a directory to another user")
			}
			base := t.TempDir()
			top := filepath.Join(base, "top")
			sub := filepath.Join(top, "sub")
			file := filepath.Join(sub, "f")
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte("x\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			for d, m := range map[string]os.FileMode{top: tc.top, sub: tc.sub} {
				mode := m.Perm()
				if m&0o1000 != 0 {
					mode |= os.ModeSticky
				}
				if err := os.Chmod(d, mode); err != nil {
					t.Fatal(err)
				}
			}
			if tc.owner >= 0 {
				if err := os.Chown(sub, tc.owner, -1); err != nil {
					t.Fatal(err)
				}
			}
			dir, why := Swappable(file, os.Geteuid())
			got := ""
			if dir != "" {
				got = filepath.Base(dir) + ": " + why
			}
			if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
				t.Fatalf("Swappable = %q, want %q", got, tc.want)
			}
		})
	}
}
