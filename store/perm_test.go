package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestCheckPrivateWording: the refusal names catchup (backfill prints it
// too, not only scan), and for a directory another user owns it says to
// remove the planted directory or keep the ledger elsewhere, not to take
// the directory over with chown.
func TestCheckPrivateWording(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("gives a directory to another user")
	}
	tests := map[string]struct {
		chownDir, chownFile bool
		want                []string
		notWant             []string
	}{
		"another user's directory": {chownDir: true,
			want:    []string{"is owned by uid 65534", "not by uid 0 running catchup", "remove", "keep the ledger in a directory of your own"},
			notWant: []string{"running scan", "chown"}},
		"another user's file": {chownFile: true,
			want:    []string{"is owned by uid 65534", "not by uid 0 running catchup", "remove it if you did not put it there"},
			notWant: []string{"running scan"}},
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
			if tc.chownDir {
				os.Chown(dir, 65534, 65534)
			}
			if tc.chownFile {
				os.Chown(path, 65534, 65534)
			}
			err := CheckPrivate(path, 0)
			if err == nil {
				t.Fatal("CheckPrivate accepted it")
			}
			checkWording(t, err, tc.want, tc.notWant)
		})
	}
}

// TestCheckPrivateSharedDirectory: a ledger in a shared sticky directory
// (/tmp, /var/tmp) is refused with its real mode, and the fix is a
// directory of one's own: `chmod 700 /tmp` would break every other user.
// A directory that is merely too open is still told to chmod.
func TestCheckPrivateSharedDirectory(t *testing.T) {
	tests := map[string]struct {
		mode          os.FileMode
		want, notWant []string
	}{
		"sticky and world-writable, as /tmp": {mode: 0o777 | os.ModeSticky,
			want:    []string{"has mode 1777", "keep the ledger in a directory of your own (--db or CATCHUP_DB)", "shared"},
			notWant: []string{"chmod"}},
		"world-writable, not sticky": {mode: 0o777,
			want: []string{"has mode 0777", "fix: chmod 700"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "shared")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "catchup.db")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			err := CheckPrivate(path, os.Getuid())
			if err == nil {
				t.Fatal("CheckPrivate accepted a ledger in a shared directory")
			}
			checkWording(t, err, tc.want, tc.notWant)
		})
	}
}

// TestCheckPrivateSharedDirectoryOfRoot: a user's ledger in /tmp (root's
// sticky directory) is told the same: keep the ledger in a directory of
// your own, never "remove /tmp".
func TestCheckPrivateSharedDirectoryOfRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("gives the ledger to another user")
	}
	dir := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "catchup.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := CheckPrivate(path, 65534)
	if err == nil {
		t.Fatal("CheckPrivate accepted a ledger in a shared directory")
	}
	checkWording(t, err, []string{"has mode 1777", "it is a shared directory; keep the ledger in a directory of your own"},
		[]string{"remove", "chmod"})
}

// checkWording fails t unless err says each of want and none of notWant.
func checkWording(t *testing.T, err error, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	for _, w := range notWant {
		if strings.Contains(err.Error(), w) {
			t.Errorf("error %q says %q", err, w)
		}
	}
}

// TestCheckPrivateDir: the directory a ledger would be created in is judged
// by CheckPrivate's rule before the ledger exists; one that does not exist
// yet is no refusal (opening the ledger creates it private).
func TestCheckPrivateDir(t *testing.T) {
	tests := map[string]struct {
		mode    os.FileMode // 0: the directory does not exist
		wantErr bool
	}{
		"private":              {mode: 0o700},
		"not there yet":        {},
		"shared, as /tmp":      {mode: 0o777 | os.ModeSticky, wantErr: true},
		"writable by a group":  {mode: 0o770, wantErr: true},
		"readable by everyone": {mode: 0o755},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if tc.mode != 0 {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckPrivateDir(filepath.Join(dir, "catchup.db"), os.Getuid())
			if (err != nil) != tc.wantErr {
				t.Fatalf("CheckPrivateDir = %v, want an error: %v", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrUnsafeLedger) {
				t.Errorf("CheckPrivateDir = %v, want ErrUnsafeLedger", err)
			}
		})
	}
}

// TestCheckPrivateAncestors: a directory above the ledger's that another
// user can write (without the sticky bit) or owns lets them move the
// ledger's directory aside and put theirs in its place, whose commands
// scan then runs: the same refusal as for the ledger's own directory.
func TestCheckPrivateAncestors(t *testing.T) {
	tests := map[string]struct {
		mode       os.FileMode
		otherOwner bool
		wantErr    string
	}{
		"private ancestor":                {mode: 0o755},
		"sticky world-writable ancestor":  {mode: 0o777 | os.ModeSticky},
		"world-writable ancestor":         {mode: 0o777, wantErr: "has mode 0777"},
		"group-writable ancestor":         {mode: 0o775, wantErr: "has mode 0775"},
		"ancestor owned by another user":  {mode: 0o755, otherOwner: true, wantErr: "is owned by uid 65534"},
		"sticky ancestor of another user": {mode: 0o777 | os.ModeSticky, otherOwner: true, wantErr: "is owned by uid 65534"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if tc.otherOwner && os.Getuid() != 0 {
				t.Skip("gives a directory to another user")
			}
			above := filepath.Join(t.TempDir(), "above")
			dir := filepath.Join(above, "state")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "catchup.db")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(above, tc.mode); err != nil {
				t.Fatal(err)
			}
			if tc.otherOwner {
				if err := os.Chown(above, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			for _, check := range []struct {
				name string
				err  error
			}{{"CheckPrivate", CheckPrivate(path, os.Getuid())}, {"CheckPrivateDir", CheckPrivateDir(path, os.Getuid())}} {
				if tc.wantErr == "" {
					if check.err != nil {
						t.Errorf("%s = %v, want no error", check.name, check.err)
					}
					continue
				}
				if !errors.Is(check.err, ErrUnsafeLedger) || !strings.Contains(check.err.Error(), above+" "+tc.wantErr) {
					t.Errorf("%s = %v, want ErrUnsafeLedger naming %s %s", check.name, check.err, above, tc.wantErr)
				}
			}
		})
	}
}
