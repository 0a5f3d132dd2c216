package catchup

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOthersMayWrite: a fire lists the spare note directory's parent,
// looking for its stand-ins, only where another user than its own and
// root could have made the spare note directory first.
func TestOthersMayWrite(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: directories owned by other users")
	}
	const other = 65534
	tests := map[string]struct {
		mode  os.FileMode
		owner int
		want  bool
	}{
		"owned by root, 0755 as /run":         {mode: 0o755, owner: 0, want: false},
		"owned by the user, 0700":             {mode: 0o700, owner: 1000, want: false},
		"sticky and world-writable":           {mode: 0o777 | os.ModeSticky, owner: 0, want: true},
		"group-writable":                      {mode: 0o775, owner: 0, want: true},
		"owned by another user, 0755":         {mode: 0o755, owner: other, want: true},
		"owned by another user, not writable": {mode: 0o555, owner: other, want: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "parent")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, tc.owner, tc.owner); err != nil {
				t.Fatal(err)
			}
			if got := othersMayWrite(dir, 1000); got != tc.want {
				t.Fatalf("othersMayWrite(%v, owner %d) = %v, want %v", tc.mode, tc.owner, got, tc.want)
			}
		})
	}
	if !othersMayWrite(filepath.Join(t.TempDir(), "missing"), 1000) {
		t.Fatal("othersMayWrite of a missing directory = false, want true (cannot tell)")
	}
}
