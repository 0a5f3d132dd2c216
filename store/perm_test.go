package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckPrivate(t *testing.T) {
	tests := map[string]struct {
		dirMode, fileMode os.FileMode
		otherOwner        bool
		wantErr           bool
	}{
		"private":               {dirMode: 0o700, fileMode: 0o600},
		"group-readable is ok":  {dirMode: 0o750, fileMode: 0o640},
		"group-writable file":   {dirMode: 0o700, fileMode: 0o620, wantErr: true},
		"world-writable file":   {dirMode: 0o700, fileMode: 0o606, wantErr: true},
		"group-writable dir":    {dirMode: 0o770, fileMode: 0o600, wantErr: true},
		"world-writable dir":    {dirMode: 0o777, fileMode: 0o600, wantErr: true},
		"owned by someone else": {dirMode: 0o700, fileMode: 0o600, otherOwner: true, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "catchup.db")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(path, tc.fileMode)
			os.Chmod(dir, tc.dirMode)
			uid := os.Getuid()
			if tc.otherOwner {
				uid++ // the files are ours; scan runs as someone else
			}
			err := CheckPrivate(path, uid)
			if tc.wantErr != (err != nil) {
				t.Fatalf("CheckPrivate = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrUnsafeLedger) {
				t.Errorf("error %v is not ErrUnsafeLedger", err)
			}
		})
	}
}
