package crontab

import (
	"reflect"
	"testing"
	"testing/fstest"
)

// TestBackupsOf: a file beside a crontab in a cron.d directory whose name
// says it is a copy of it, that cronie reads, and that holds a job line not
// run through catchup, is a backup cron runs too: its jobs run twice.
func TestBackupsOf(t *testing.T) {
	wrapped := "0 2 * * * root catchup run --task backup -- /usr/local/bin/backup\n"
	raw := "0 2 * * * root /usr/local/bin/backup\n"
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }
	tests := map[string]struct {
		files map[string]string
		name  string
		want  []Backup
	}{
		"an old wrap's backup": {files: map[string]string{"backup": wrapped, "backup.bak": raw}, name: "backup",
			want: []Backup{{Name: "backup.bak", Of: "backup", Jobs: 1}}},
		"every backup word": {files: map[string]string{"backup": wrapped, "backup.orig": raw, "backup.old": raw,
			"backup.save": raw, "backup.backup": raw + raw}, name: "backup",
			want: []Backup{{Name: "backup.backup", Of: "backup", Jobs: 2}, {Name: "backup.old", Of: "backup", Jobs: 1},
				{Name: "backup.orig", Of: "backup", Jobs: 1}, {Name: "backup.save", Of: "backup", Jobs: 1}}},
		"a dated or numbered copy": {files: map[string]string{"backup": wrapped, "backup.bak.1": raw, "backup.2026-03-01.old": raw},
			name: "backup", want: []Backup{{Name: "backup.2026-03-01.old", Of: "backup", Jobs: 1}, {Name: "backup.bak.1", Of: "backup", Jobs: 1}}},
		"the file read is itself the backup": {files: map[string]string{"backup": wrapped, "backup.bak": raw}, name: "backup.bak",
			want: []Backup{{Name: "backup.bak", Of: "backup", Jobs: 1}}},
		"this catchup's backup, which cron skips": {files: map[string]string{"backup": wrapped, "backup.bak~": raw}, name: "backup"},
		"rpm's copies, which cronie skips":        {files: map[string]string{"backup": wrapped, "backup.rpmsave": raw, "backup.rpmorig": raw}, name: "backup"},
		"a dot file":                              {files: map[string]string{"backup": wrapped, ".backup.bak": raw}, name: "backup"},
		"a backup with no job line":               {files: map[string]string{"backup": wrapped, "backup.bak": "# nothing\nMAILTO=root\n"}, name: "backup"},
		"a backup already wrapped":                {files: map[string]string{"backup": wrapped, "backup.bak": wrapped}, name: "backup"},
		"another crontab's name":                  {files: map[string]string{"backup": wrapped, "backups": raw, "backup-old": raw}, name: "backup"},
		"no such original":                        {files: map[string]string{"backup.bak": raw}, name: "backup.bak"},
		"a directory of that name":                {files: map[string]string{"backup": wrapped, "backup.bak/x": raw}, name: "backup"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for n, s := range tt.files {
				fsys[n] = file(s)
			}
			got := BackupsOf(fsys, tt.name, true)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("BackupsOf(%s) = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
}

// TestCronieReads: the names cronie's not_a_crontab (src/database.c) skips
// in /etc/cron.d.
func TestCronieReads(t *testing.T) {
	tests := map[string]bool{
		"backup": true, "backup.bak": true, "php-sessions": true,
		".backup": false, "#backup#": false, "backup.bak~": false,
		"backup.rpmsave": false, "backup.rpmorig": false, "backup.rpmnew": false,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			if got := CronieReads(name); got != want {
				t.Errorf("CronieReads(%q) = %v, want %v", name, got, want)
			}
		})
	}
}

// TestIsCronDir: /etc/cron.d, wherever SystemDir points, and any directory
// named cron.d (a chroot's, a container image's).
func TestIsCronDir(t *testing.T) {
	tests := map[string]bool{
		"/etc/cron.d": true, "/srv/chroot/etc/cron.d/": true, "/etc": false,
		"/var/spool/cron/crontabs": false, "/etc/cron.daily": false,
	}
	for dir, want := range tests {
		t.Run(dir, func(t *testing.T) {
			if got := IsCronDir(dir); got != want {
				t.Errorf("IsCronDir(%q) = %v, want %v", dir, got, want)
			}
		})
	}
}
