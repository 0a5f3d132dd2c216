package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteWrappedOwner: a caller that is not root is refused another
// user's crontab before anything is written (it could not keep the owner);
// its own file is rewritten.
func TestWriteWrappedOwner(t *testing.T) {
	me := os.Geteuid()
	tests := map[string]struct {
		euid    int
		wantErr string
	}{
		"the owner":                {euid: me},
		"another user, not root":   {euid: me + 1000, wantErr: "not by you"},
		"root keeps the owner too": {euid: 0},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if tt.euid == 0 && me != 0 {
				t.Skip("needs root")
			}
			path := filepath.Join(t.TempDir(), "alice")
			if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := WriteWrapped(path, []byte("old\n"), "new\n", tt.euid)
			got, _ := os.ReadFile(path)
			_, bakErr := os.Stat(path + ".bak")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				if string(got) != "old\n" || bakErr == nil {
					t.Errorf("refused, but wrote: file %q, backup there: %v", got, bakErr == nil)
				}
				return
			}
			if err != nil || string(got) != "new\n" || bakErr != nil {
				t.Errorf("err %v, file %q, backup %v", err, got, bakErr)
			}
		})
	}
}
