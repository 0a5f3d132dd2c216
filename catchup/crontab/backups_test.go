package crontab

import (
	"reflect"
	"testing"
	"testing/fstest"
)

// TestDuplicatesOf: a file beside a crontab in a cron.d directory, that
// cron reads, holding a job line not run through catchup whose command the
// crontab runs through catchup, runs that command twice. Judged by what
// the files hold, never by their names.
func TestDuplicatesOf(t *testing.T) {
	const mysql = "0 * * * * root catchup run --task mysql-hourly -- /usr/local/bin/mysql-check\n"
	const mysqlRaw = "0 * * * * root /usr/local/bin/mysql-check\n"
	// What `crontab wrap` made of a line that is no plain list of words.
	const dumpRaw = "30 2 * * * root pg_dump app | gzip > /var/backups/app-$(date +\\%F).gz\n"
	dumpWrapped, _, _ := Wrap(dumpRaw, true, nil, nil)
	tests := map[string]struct {
		files map[string]string
		name  string
		want  []Duplicate
	}{
		"a plain name cron runs": {files: map[string]string{"mysql": mysql, "mysql_bak": mysqlRaw, "mysql-old": mysqlRaw}, name: "mysql",
			want: []Duplicate{{Name: "mysql-old", Of: "mysql", Jobs: 1}, {Name: "mysql_bak", Of: "mysql", Jobs: 1}}},
		"a dotted name only cronie runs": {files: map[string]string{"mysql": mysql, "mysql.bak1": mysqlRaw, "mysql.copy": mysqlRaw + mysqlRaw}, name: "mysql",
			want: []Duplicate{{Name: "mysql.bak1", Of: "mysql", Jobs: 1, CronieOnly: true}, {Name: "mysql.copy", Of: "mysql", Jobs: 2, CronieOnly: true}}},
		"an old wrap's backup": {files: map[string]string{"mysql": mysql, "mysql.bak": "# the original\n" + mysqlRaw}, name: "mysql",
			want: []Duplicate{{Name: "mysql.bak", Of: "mysql", Jobs: 1, CronieOnly: true}}},
		"a copy with an edited schedule": {files: map[string]string{"mysql": mysql, "legacy": "*/5 * * * * nobody  /usr/local/bin/mysql-check  \n"}, name: "mysql",
			want: []Duplicate{{Name: "legacy", Of: "mysql", Jobs: 1}}},
		"a wrapped shell command compares as its original": {files: map[string]string{"dump": dumpWrapped, "dump-orig": dumpRaw}, name: "dump",
			want: []Duplicate{{Name: "dump-orig", Of: "dump", Jobs: 1}}},
		"only the duplicate lines count": {files: map[string]string{"mysql": mysql, "misc": mysqlRaw + "0 3 * * * root /usr/local/bin/other\n"}, name: "mysql",
			want: []Duplicate{{Name: "misc", Of: "mysql", Jobs: 1}}},
		"its own job, not a copy (the review's db.backup)": {files: map[string]string{
			"db":        "0 * * * * catchup run --task db-check -- /usr/local/bin/db-check\n",
			"db.backup": "# nightly dump: its own job, not a copy of db\n30 2 * * * /usr/local/bin/db-dump\n"}, name: "db"},
		"a copy holding only catchup lines":         {files: map[string]string{"mysql": mysql, "mysql_bak": mysql}, name: "mysql"},
		"a dot file":                                {files: map[string]string{"mysql": mysql, ".mysql": mysqlRaw}, name: "mysql"},
		"a ~ file":                                  {files: map[string]string{"mysql": mysql, "mysql.bak~": mysqlRaw, "mysql~": mysqlRaw}, name: "mysql"},
		"rpm's copies, which cronie skips":          {files: map[string]string{"mysql": mysql, "mysql.rpmsave": mysqlRaw, "mysql.rpmorig": mysqlRaw}, name: "mysql"},
		"a file cron reads sharing no command":      {files: map[string]string{"mysql": mysql, "mysql-extra": "0 4 * * * root /usr/local/bin/mysql-check --full\n"}, name: "mysql"},
		"a copy with no job line":                   {files: map[string]string{"mysql": mysql, "mysql_bak": "# nothing\nMAILTO=root\n"}, name: "mysql"},
		"a crontab running nothing through catchup": {files: map[string]string{"mysql": mysqlRaw, "mysql_bak": mysqlRaw}, name: "mysql"},
		"a directory of that name":                  {files: map[string]string{"mysql": mysql, "mysql_bak/x": mysqlRaw}, name: "mysql"},
		// cron reads a line up to its first NUL: one that starts with it is empty (it panicked).
		"a NUL-led line in a copy": {files: map[string]string{"mysql": mysql, "mysql_bak": "\x00\n\x00 x\n" + mysqlRaw}, name: "mysql",
			want: []Duplicate{{Name: "mysql_bak", Of: "mysql", Jobs: 1}}},
		"a NUL-led line in the crontab": {files: map[string]string{"mysql": "\x00\n" + mysql, "mysql_bak": mysqlRaw}, name: "mysql",
			want: []Duplicate{{Name: "mysql_bak", Of: "mysql", Jobs: 1}}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for n, s := range tt.files {
				fsys[n] = &fstest.MapFile{Data: []byte(s), Mode: 0o644}
			}
			got := DuplicatesOf(fsys, tt.name, tt.files[tt.name], true)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DuplicatesOf(%s) = %+v, want %+v", tt.name, got, tt.want)
			}
		})
	}
}

// TestCronReads: the names cronie's not_a_crontab (src/database.c) skips
// in /etc/cron.d, and the only ones Debian's cron reads ([A-Za-z0-9_-]).
func TestCronReads(t *testing.T) {
	tests := map[string]struct{ cronie, debian bool }{
		"backup": {true, true}, "php-sessions": {true, true}, "mysql_bak": {true, true},
		"backup.bak": {true, false}, "backup+1": {true, false},
		".backup": {false, false}, "#backup#": {false, false}, "backup.bak~": {false, false}, "backup~": {false, false},
		"backup.rpmsave": {false, false}, "backup.rpmorig": {false, false}, "backup.rpmnew": {false, false},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			if got := CronieReads(name); got != want.cronie {
				t.Errorf("CronieReads(%q) = %v, want %v", name, got, want.cronie)
			}
			if got := DebianReads(name); got != want.debian {
				t.Errorf("DebianReads(%q) = %v, want %v", name, got, want.debian)
			}
		})
	}
}

// TestIsCronDir: /etc/cron.d, wherever SystemDir points, and any directory
// named cron.d (a chroot's, a container image's).
func TestIsCronDir(t *testing.T) {
	tests := map[string]bool{
		"/etc/cron.d": true, "/srv/chroot/etc/cron.d/": true, "/etc": false,
		"/var/spool/cron/crontabs": false, "/etc/cron.d/..": false, "/etc/cron.daily": false,
	}
	for dir, want := range tests {
		t.Run(dir, func(t *testing.T) {
			if got := IsCronDir(dir); got != want {
				t.Errorf("IsCronDir(%q) = %v, want %v", dir, got, want)
			}
		})
	}
}

// FuzzDuplicatesOf: no crontab, nor any file beside it, makes the search
// for duplicates panic (a root scan runs it on every crontab in a cron.d
// directory it reads, and on the files another user may put beside it).
func FuzzDuplicatesOf(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x00\n", " \x00x", "-\x00", "@\x00", "0 * * * * root /bin/x\n"} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, other string, system bool) {
		const own = "0 * * * * root catchup run --task x -- /bin/x\n"
		fsys := fstest.MapFS{"own": {Data: []byte(own + other)}, "other": {Data: []byte(other)}}
		DuplicatesOf(fsys, "own", own+other, system)
	})
}
