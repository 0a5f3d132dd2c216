package catchup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/catchup/crontab"
	"github.com/catchup/catchup/internal/filetrust"
)

// TestWriteWrappedOwner: a caller that is not root is refused another
// user's crontab before anything is written (it could not keep the owner);
// its own file is rewritten.
func TestWriteWrappedOwner(t *testing.T) {
	t.Parallel()
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
			read, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = WriteWrapped(path, read, []byte("old\n"), "new\n", tt.euid)
			got, _ := os.ReadFile(path)
			_, bakErr := os.Stat(path + ".bak~")
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

// TestWriteWrappedBackupNoCronReads: the backup --in-place leaves beside a
// crontab is a name no cron reads, or every job of an /etc/cron.d file
// would run twice, wrapped and not. cronie reads every file in /etc/cron.d
// but those its not_a_crontab (src/database.c) skips: a name starting with
// "#" or ending in "~", ".rpmsave", ".rpmorig" or ".rpmnew"; Debian's cron
// reads only names of [A-Za-z0-9_-]. A spool crontab is read only under a
// user's name, and /etc/crontab only under its own.
func TestWriteWrappedBackupNoCronReads(t *testing.T) {
	t.Parallel()
	cronieReads := func(name string) bool {
		if strings.HasPrefix(name, "#") {
			return false
		}
		for _, suffix := range []string{"~", ".rpmsave", ".rpmorig", ".rpmnew"} {
			if strings.HasSuffix(name, suffix) {
				return false
			}
		}
		return true
	}
	debianReads := func(name string) bool {
		return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
	}
	tests := map[string]string{
		"a cron.d file":      "backup",
		"a name with a dash": "php-sessions",
		"a spool crontab":    "alice",
		"/etc/crontab":       "crontab",
	}
	for name, file := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), file)
			if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			read, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			backup, _, err := WriteWrapped(path, read, []byte("old\n"), "new\n", os.Geteuid())
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(backup); string(got) != "old\n" {
				t.Errorf("backup %s holds %q, want the original", backup, got)
			}
			if dir := filepath.Dir(backup); dir != filepath.Dir(path) {
				t.Errorf("backup in %s, want beside the file", dir)
			}
			base := filepath.Base(backup)
			if !strings.HasSuffix(base, "~") || cronieReads(base) || debianReads(base) {
				t.Errorf("backup %s: a cron would read it (cronie %v, Debian %v)", base, cronieReads(base), debianReads(base))
			}
		})
	}
}

// TestReadToWrap: wrap reads only a regular file of at most 16 MiB, and a
// FIFO with no writer is refused at once, not waited on.
func TestReadToWrap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, crontab.MaxSize+1); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(dir, "full")
	if err := os.WriteFile(full, []byte("0 3 * * * /opt/backup\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path, want, wantErr string
	}{
		"a crontab":   {path: full, want: "0 3 * * * /opt/backup\n"},
		"a FIFO":      {path: fifo, wantErr: "refused: it is not a regular file (a named pipe)"},
		"a device":    {path: "/dev/zero", wantErr: "refused: it is not a regular file (a device)"},
		"a directory": {path: dir, wantErr: "fix: name the crontab file in it, not the directory"},
		"over 16 MiB": {path: big, wantErr: "refused: it is larger than 16 MiB"},
		"not there":   {path: filepath.Join(dir, "none"), wantErr: "no such file"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				defer close(done)
				data, _, err = ReadToWrap(tt.path)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("ReadToWrap(%s) still blocked after 10s", tt.path)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				if !errors.Is(err, filetrust.ErrRefused) && tt.path != filepath.Join(dir, "none") {
					t.Errorf("err = %v, want a refusal", err)
				}
				return
			}
			if err != nil || string(data) != tt.want {
				t.Fatalf("ReadToWrap = %q, %v; want %q", data, err, tt.want)
			}
		})
	}
}
