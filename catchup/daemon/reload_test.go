package daemon

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFileStampsSeeAModeChange: a reload refused because the crontab was
// group-writable is tried again once the mode is fixed (chmod changes
// neither the size nor the modification time).
func TestFileStampsSeeAModeChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "crontab")
	if err := os.WriteFile(p, []byte("* * * * * true\n"), 0o664); err != nil {
		t.Fatal(err)
	}
	before := fileStamps([]string{p})
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if after := fileStamps([]string{p}); after == before {
		t.Errorf("fileStamps did not change with the mode: %q", after)
	}
}
