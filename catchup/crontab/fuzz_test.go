package crontab

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var taskNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func FuzzParseCrontab(f *testing.F) {
	for _, name := range []string{"user.crontab", "system.crontab"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "crontabs", name)); err == nil {
			f.Add(string(b), name == "system.crontab")
		}
	}
	for _, seed := range []string{
		"",
		"0 2 * * * catchup run --task daily-settle -- ./settle.sh\n",
		"MAILTO=x\nCRON_TZ = 'Europe/Berlin'\n@daily /usr/local/bin/catchup run --task=a.b --cron '0 0 * * *' -- x%in%put\\%\n",
		"@reboot catchup run --task a\n0 2 * * catchup run --task b\ncatchup run --task\n",
		"0 2 * * * root catchup run --task a --tz UTC --replay all --force=1 -- cmd\n",
		"0 2 * * * catchup run --task \"a\\\"b\" 'c\n* * * * * catchup run --task a; x\n",
		"-@hourly catchup run --task x\\\\%%\\\n\r\n\x00\t \n",
		"A=\"x\ncatchup run --bogus\n0 0 2 * * * catchup run --task a\n",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, data string, system bool) {
		got, errs := Parse(strings.NewReader(data), "fuzz", system)
		lines := strings.Count(data, "\n") + 1
		if len(got)+len(errs) > lines {
			t.Fatalf("%d entries and %d errors from %d lines", len(got), len(errs), lines)
		}
		for _, e := range got {
			if !taskNameRE.MatchString(e.Task) {
				t.Errorf("invalid task name %q in %#v", e.Task, e)
			}
			if e.Line < 1 || e.Line > lines || e.File != "fuzz" {
				t.Errorf("bad position %s:%d (lines %d)", e.File, e.Line, lines)
			}
			if e.Expr == "" || strings.ContainsAny(e.Command, "\n\x00") || system != (e.User != "") {
				t.Errorf("bad entry %#v", e)
			}
			if e.Stdin != "" && !strings.HasSuffix(e.Stdin, "\n") && !strings.HasSuffix(e.Stdin, "\\") {
				t.Errorf("stdin %q lacks cron's final newline", e.Stdin)
			}
		}
		for _, err := range errs {
			var ce *Error
			if !errors.As(err, &ce) || ce.Line < 1 || ce.Line > lines || ce.File != "fuzz" || ce.Err == nil {
				t.Errorf("bad error %#v", err)
			}
		}
		got2, errs2 := Parse(strings.NewReader(data), "fuzz", system)
		if !reflect.DeepEqual(got, got2) || !reflect.DeepEqual(errs, errs2) {
			t.Errorf("parse is not deterministic")
		}
	})
}
