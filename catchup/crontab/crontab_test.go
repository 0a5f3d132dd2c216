package crontab

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// catchupLine builds the usual test entry for line with a 5-field expression.
func catchupLine(line int, expr, cmd, task string) Entry {
	return Entry{File: "t", Line: line, Expr: expr, Command: cmd, Task: task}
}

func checkParse(t *testing.T, in string, system bool, want []Entry, wantErrs []string) {
	t.Helper()
	got, errs := Parse(strings.NewReader(in), "t", system)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries mismatch\n got: %#v\nwant: %#v", got, want)
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("got %d errors %q, want %d %q", len(errs), errs, len(wantErrs), wantErrs)
	}
	for i, err := range errs {
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), wantErrs[i]) {
			t.Errorf("error %d = %v, want *Error containing %q", i, err, wantErrs[i])
		}
	}
}

func TestParseRules(t *testing.T) {
	long := strings.Repeat("x", 129)
	tests := map[string]struct {
		in     string
		system bool
		want   []Entry
		errs   []string
	}{
		"basic": {in: "0 2 * * * catchup run --task a -- ./x\n",
			want: []Entry{catchupLine(1, "0 2 * * *", "catchup run --task a -- ./x", "a")}},
		"blanks tabs and comments": {in: "\n  # 0 2 * * * catchup run --task c -- true\n \t0\t2 *  * *\tcatchup run --task a -- true\n#x",
			want: []Entry{catchupLine(3, "0 2 * * *", "catchup run --task a -- true", "a")}},
		"dash prefix disables logging": {in: "-0 2 * * * catchup run --task a -- true",
			want: []Entry{catchupLine(1, "0 2 * * *", "catchup run --task a -- true", "a")}},
		"all macros": {in: "@yearly catchup run --task a -- true\n@annually catchup run --task a -- true\n@monthly catchup run --task a -- true\n" +
			"@weekly catchup run --task a -- true\n@daily catchup run --task a -- true\n@midnight catchup run --task a -- true\n@hourly catchup run --task a -- true",
			want: func() (es []Entry) {
				for i, m := range []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"} {
					es = append(es, catchupLine(i+1, m, "catchup run --task a -- true", "a"))
				}
				return es
			}()},
		"env spaces quotes and overrides": {in: "A = 1\nB='x y'\nC=\" q \"  \nD=\nE=  v w \t\nA=2\n0 2 * * * catchup run --task a -- true\nF=late\n",
			want: []Entry{{File: "t", Line: 7, Expr: "0 2 * * *", Command: "catchup run --task a -- true", Task: "a",
				Env: []string{"A=2", "B=x y", "C= q ", "D=", "E=v w"}}}},
		"bad env quoting is not an env line": {in: "A=\"x\" y\nB=\"open\n1A=x\n0 2 * * * catchup run --task a -- true",
			want: []Entry{catchupLine(4, "0 2 * * *", "catchup run --task a -- true", "a")}},
		"env shape wins over job": {in: "A=1 0 2 * * * catchup run --task a -- true\n0 2 * * * catchup run --task b -- true",
			want: []Entry{{File: "t", Line: 2, Expr: "0 2 * * *", Command: "catchup run --task b -- true", Task: "b",
				Env: []string{"A=1 0 2 * * * catchup run --task a -- true"}}}},
		// cronie reads the lines in CRON_TZ; TZ= only reaches the jobs.
		"only CRON_TZ is the zone": {in: "TZ=UTC\n0 * * * * catchup run --task a -- true\nCRON_TZ=Europe/Paris\n0 * * * * catchup run --task b -- true\nCRON_TZ=\n0 * * * * catchup run --task c -- true",
			want: []Entry{
				{File: "t", Line: 2, Expr: "0 * * * *", Command: "catchup run --task a -- true", Task: "a", Env: []string{"TZ=UTC"}},
				{File: "t", Line: 4, Expr: "0 * * * *", Command: "catchup run --task b -- true", Task: "b", TZ: "Europe/Paris", Env: []string{"TZ=UTC", "CRON_TZ=Europe/Paris"}},
				{File: "t", Line: 6, Expr: "0 * * * *", Command: "catchup run --task c -- true", Task: "c", Env: []string{"TZ=UTC", "CRON_TZ="}}}},
		"wait with a limit, on-busy, manual": {in: "0 2 * * * catchup run --wait 10m --on-busy wait --manual --task a -- cmd\n" +
			"0 3 * * * catchup run --task b --wait cmd --task zzz",
			want: []Entry{
				{File: "t", Line: 1, Expr: "0 2 * * *", Task: "a", OnBusy: "wait",
					Command: "catchup run --wait 10m --on-busy wait --manual --task a -- cmd"},
				catchupLine(2, "0 3 * * *", "catchup run --task b --wait cmd --task zzz", "b")}},
		"all flags": {in: "0 2 * * * catchup run --task=a --cron '*/5 * * * *' --tz=Europe/Oslo --replay all --force --wait=true --strict " +
			"--no-capture --fail-open --tolerance 5m --timeout=1h --kill-after 10s --slot x --retries 2 --retry-delay 1s " +
			"--db d --notify-cmd 'n c' --ping p --host h --lease 1m --on-busy skip --max-age 3d -- cmd --task zzz --bogus",
			want: []Entry{{File: "t", Line: 1, Expr: "0 2 * * *", Task: "a", Cron: "*/5 * * * *", Zone: "Europe/Oslo", Replay: "all", DB: "d",
				OnBusy: "skip", MaxAge: "3d", NotifyCmd: "n c",
				Command: "catchup run --task=a --cron '*/5 * * * *' --tz=Europe/Oslo --replay all --force --wait=true --strict " +
					"--no-capture --fail-open --tolerance 5m --timeout=1h --kill-after 10s --slot x --retries 2 --retry-delay 1s " +
					"--db d --notify-cmd 'n c' --ping p --host h --lease 1m --on-busy skip --max-age 3d -- cmd --task zzz --bogus"}}},
		// --notify-cmd is read as the fire gets it when the line's shell
		// expands nothing in it: $ inside single quotes, or escaped, is the
		// alert's own (CATCHUP_TASK); one the line's shell expands is marked,
		// and kept as written (NotifyWord), without --notify-cmd=.
		"notify-cmd expanded or not": {in: "0 1 * * * catchup run --task a --notify-cmd 'echo $CATCHUP_TASK >> f' -- true\n" +
			"0 2 * * * catchup run --task b --notify-cmd=\"echo \\$CATCHUP_TASK\" -- true\n" +
			"0 3 * * * catchup run --task c --notify-cmd \"$PAGER x\" -- true\n" +
			"0 4 * * * catchup run --task d --notify-cmd=page`date` -- true\n" +
			"0 5 * * * catchup run --task e --notify-cmd 'a'$B -- true\n",
			want: []Entry{
				{File: "t", Line: 1, Expr: "0 1 * * *", Task: "a", NotifyCmd: "echo $CATCHUP_TASK >> f",
					Command: "catchup run --task a --notify-cmd 'echo $CATCHUP_TASK >> f' -- true"},
				{File: "t", Line: 2, Expr: "0 2 * * *", Task: "b", NotifyCmd: "echo $CATCHUP_TASK",
					Command: "catchup run --task b --notify-cmd=\"echo \\$CATCHUP_TASK\" -- true"},
				{File: "t", Line: 3, Expr: "0 3 * * *", Task: "c", NotifyCmd: "$PAGER x", NotifyExpands: true, NotifyWord: `"$PAGER x"`,
					Command: "catchup run --task c --notify-cmd \"$PAGER x\" -- true"},
				{File: "t", Line: 4, Expr: "0 4 * * *", Task: "d", NotifyCmd: "page`date`", NotifyExpands: true, NotifyWord: "page`date`",
					Command: "catchup run --task d --notify-cmd=page`date` -- true"},
				{File: "t", Line: 5, Expr: "0 5 * * *", Task: "e", NotifyCmd: "a$B", NotifyExpands: true, NotifyWord: "'a'$B",
					Command: "catchup run --task e --notify-cmd 'a'$B -- true"}}},
		// Every flag of run takes one value: the last no longer wins.
		"single-valued flags twice refused": {in: "0 2 * * * catchup run --task a --replay all --replay=latest -- true\n" +
			"0 2 * * * catchup run --task a --wait 10m --wait=5s -- true\n0 2 * * * catchup run --task a --strict --strict -- true\n" +
			"0 2 * * * catchup run --task a --timeout 1h --kill-after 1s --timeout=1s -- true\n" +
			"0 2 * * * catchup --db a --db b run --task a -- true\n0 2 * * * catchup --host h run --host=h --task a -- true",
			errs: []string{"t:1: --replay given more than once: catchup run takes one --replay; fix: keep one",
				"t:2: --wait given more than once", "t:3: --strict given more than once", "t:4: --timeout given more than once",
				"t:5: --db given more than once", "t:6: --host given more than once"}},
		"task twice refused": {in: "0 2 * * * catchup run --task=a --task b -- true",
			errs: []string{"t:1: --task given more than once: a fire stands for one task; fix: keep one --task"}},
		"invocation ends at operators comments and positionals": {in: "* * * * * catchup run --task a; echo --bogus\n" +
			"* * * * * catchup run --task b&&x --bogus\n* * * * * catchup run --task c|x\n* * * * * catchup run --task d>log --bogus\n" +
			"* * * * * catchup run --task e # --bogus\n* * * * * catchup run --task f ./x --bogus\n",
			// What follows an operator is not run's (no --bogus flag): the
			// invocation it ends has no command, every fire of it would exit
			// 125, and the line is refused saying so.
			want: []Entry{catchupLine(6, "* * * * *", "catchup run --task f ./x --bogus", "f")},
			errs: []string{"t:1: no command after catchup run's flags", "t:2: no command", "t:3: no command",
				"t:4: no command", "t:5: no command"}},
		"shell quoting": {in: `0 2 * * * /usr/local/bin/"catchup" 'run' --t"ask"=a\-b --cron "0 \"2\" \$ \x" -- echo "it's`,
			want: []Entry{{File: "t", Line: 1, Expr: "0 2 * * *", Task: "a-b", Cron: `0 "2" $ \x`,
				Command: `/usr/local/bin/"catchup" 'run' --t"ask"=a\-b --cron "0 \"2\" \$ \x" -- echo "it's`}}},
		"percent stdin": {in: `0 2 * * * catchup run --task a -- printf '50\%' > /tmp/x%line1%line2\%x\\y`,
			want: []Entry{{File: "t", Line: 1, Expr: "0 2 * * *", Task: "a",
				Command: `catchup run --task a -- printf '50%' > /tmp/x`, Stdin: "line1\nline2%x\\\\y\n"}}},
		"percent edge cases": {in: "1 * * * * catchup run --task a -- echo a\\\\%b\n2 * * * * catchup run --task b -- echo 100%\n" +
			"3 * * * * catchup run --task c -- cat %%\n4 * * * * catchup%run --task d\n",
			want: []Entry{{File: "t", Line: 1, Expr: "1 * * * *", Task: "a", Command: `catchup run --task a -- echo a\\`, Stdin: "b\n"},
				{File: "t", Line: 2, Expr: "2 * * * *", Task: "b", Command: "catchup run --task b -- echo 100"},
				{File: "t", Line: 3, Expr: "3 * * * *", Task: "c", Command: "catchup run --task c -- cat ", Stdin: "\n"}}},
		"carriage return and nul kept as cron sees them": {in: "0 2 * * * catchup run --task a -- x\r\n0 3 * * * catchup run --task b -- true\x00junk",
			want: []Entry{catchupLine(1, "0 2 * * *", "catchup run --task a -- x\r", "a"), catchupLine(2, "0 3 * * *", "catchup run --task b -- true", "b")}},
		"non-catchup lines are ignored": {in: "0 2 * * * catchupd run --task a\n" +
			"0 2 * * * catchup status --task a\n0 2 * * * /opt/catchup/bin/x run\ngarbage\n0 2 * *\n@every 5m echo\n" +
			"0 2 * * * catchup 'run\n0 2 * * * sh -c 'catchup run --task a'\n"},
		"lines mentioning catchup run are warned about": {in: "0 2 * * * echo catchup run --task a -- true\n" +
			"0 2 * * * env catchup run --task a -- true\n0 2 * * * nice -n 5 catchup run --task a -- true\n0 2 * * * root catchup run --task a -- true\n" +
			"@daily root catchup run --task a -- true\n0 2 * * * cd /x && catchup run --task a -- true\n0 2 * * * catchup --bogus run --task a\n" +
			"0 2 * * * catchup --db\n",
			errs: []string{`t:1: the command starts with "echo", not catchup: if "echo" is a user field, this file is read as a user crontab`,
				`t:2: the command starts with "env"`, "t:3: mentions catchup run but the command does not start with it",
				`t:4: the command starts with "root", not catchup: if "root" is a user field`, `t:5: the command starts with "root"`,
				"t:6: mentions catchup run", "t:7: catchup is not followed by run or by --db, --host, --lease and run"}},
		"global flags before run": {in: "0 2 * * * catchup --db /x/l.db run --task a -- true\n" +
			"0 3 * * * /usr/bin/catchup --host=h1 --lease 2m --db=postgres://db/x run --task b -- true\n" +
			"0 4 * * * catchup --db /x/l.db run --task c --db /y -- true\n",
			want: []Entry{{File: "t", Line: 1, Expr: "0 2 * * *", Command: "catchup --db /x/l.db run --task a -- true", Task: "a", DB: "/x/l.db"},
				{File: "t", Line: 2, Expr: "0 3 * * *", Command: "/usr/bin/catchup --host=h1 --lease 2m --db=postgres://db/x run --task b -- true", Task: "b", DB: "postgres://db/x"}},
			// Before run and after it, --db is given twice: catchup refuses it
			// at every fire (before, the last one won).
			errs: []string{"t:3: --db given more than once: catchup run takes one --db; fix: keep one"}},
		"malformed catchup lines": {in: "@reboot catchup run --task a -- true\n@hourli catchup run --task a -- true\n0 2 * * catchup run --task a -- true\n" +
			"0 0 2 * * * catchup run --task a -- true\ncatchup run --task a -- true\n0 2 * * * catchup run -- x\n0 2 * * * catchup run --task= -- x\n" +
			"0 2 * * * catchup run --task '' -- x\n0 2 * * * catchup run --task -bad -- true\n0 2 * * * catchup run --task " + long + "\n" +
			"0 2 * * * catchup run --task a --bogus 1\n0 2 * * * catchup run -x --task a\n0 2 * * * catchup run --task\n" +
			"0 2 * * * catchup run --task a --force=maybe\n0 2 * * * catchup run --task 'a\n0 2 * * * catchup run --task \"a\n" +
			"0 2 * * * catchup run --task 'a%b'\n0 2 * * * catchup run --task a\\%b\n0 2 * * * catchup run --task ok -- true",
			want: []Entry{catchupLine(19, "0 2 * * *", "catchup run --task ok -- true", "ok")},
			errs: []string{"t:1: @reboot has no time slot, so scan replays nothing of it and leaves the line out; cron still runs it at each boot (to quiet this, run the @reboot command without catchup run)", `t:2: unknown macro "@hourli"`,
				"t:3: expected 5 time fields before the command, found 4", "t:4: expected 5 time fields before the command, found 6",
				"t:5: expected 5 time fields before the command, found 0", "t:6: missing or empty --task", "t:7: missing or empty --task",
				"t:8: missing or empty --task", `t:9: invalid task name "-bad"`, "t:10: invalid task name", "t:11: unknown flag --bogus in catchup line",
				"t:12: unknown flag -x in catchup line", "t:13: flag --task needs a value", `t:14: invalid value "maybe" for --force`,
				"t:15: unterminated single quote", "t:16: unterminated double quote", "t:17: unterminated single quote: unterminated quote (cron ends the command at the first unescaped %",
				`t:18: invalid task name "a%b"`}},
		"an unknown short flag that may be the command's secret": {in: "0 2 * * * catchup run --task mysqldump -pS3cret db\n" +
			"0 2 * * * catchup run --task a -vpS3cret -- x\n",
			errs: []string{"t:1: unknown flag -p... in catchup line", "t:2: unknown flag -v... in catchup line"}},
		"flag values catchup run refuses": {in: "0 2 * * * catchup run --task a --timeout bogus -- x\n0 2 * * * catchup run --task a --retries x -- x\n" +
			"0 2 * * * catchup run --task a --kill-after=5 -- x\n0 2 * * * catchup run --task a --retry-delay 1d2 -- x\n" +
			"0 2 * * * catchup run --task ok --timeout 1d12h --retries 010 --tolerance $TOL -- x\n" +
			"0 2 * * * catchup run --task a --retries 0x3 -- x", // a count is decimal, as run reads it
			want: []Entry{catchupLine(5, "0 2 * * *", "catchup run --task ok --timeout 1d12h --retries 010 --tolerance $TOL -- x", "ok")},
			errs: []string{`t:1: invalid --timeout "bogus": want a duration like 90s or 10m`, `t:2: invalid --retries "x": want a count`,
				`t:3: invalid --kill-after "5"`, `t:4: invalid --retry-delay "1d2"`, `t:6: invalid --retries "0x3": want a count`}},
		"system crontab": {system: true, in: "0 2 * * * root catchup run --task a -- true\n@daily www-data catchup run --task b -- true\n" +
			"0 2 * * * catchup run --task c -- true\n@daily catchup run --task d -- true\n0 2 * * * * catchup run --task e -- true\n0 2 * * root catchup run --task f -- true\n" +
			"0 2 * * * root echo catchup run --task g -- true\n",
			want: []Entry{{File: "t", Line: 1, Expr: "0 2 * * *", User: "root", Command: "catchup run --task a -- true", Task: "a"},
				{File: "t", Line: 2, Expr: "@daily", User: "www-data", Command: "catchup run --task b -- true", Task: "b"}},
			errs: []string{"t:3: missing user field", "t:4: missing user field", `t:5: user field "*" looks like a time field`,
				"t:6: expected 5 time fields before the user field, found 4", `t:7: the command starts with "echo", not catchup: scan does not discover`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { checkParse(t, tc.in, tc.system, tc.want, tc.errs) })
	}
}

func TestParseFixtures(t *testing.T) {
	uenv1 := []string{"MAILTO=ops@example.com", "PATH=/usr/local/bin:/usr/bin:/bin", "GREETING=hello world"}
	uenv2 := []string{"MAILTO=", "PATH=/usr/local/bin:/usr/bin:/bin", "GREETING=hello world", "CRON_TZ=Europe/Berlin"}
	senv1 := []string{"SHELL=/bin/sh", "PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin", "TZ=America/New_York"}
	senv2 := append(append([]string(nil), senv1...), "CRON_TZ=Asia/Tokyo")
	tests := map[string]struct {
		system bool
		want   []Entry
		errs   []string
	}{
		"user.crontab": {want: []Entry{
			{File: "user.crontab", Line: 8, Expr: "0 2 * * *", Env: uenv1, Task: "daily-settle", Cron: "0 2 * * *",
				Command: `catchup run --task daily-settle --cron "0 2 * * *" -- ./settle.sh`},
			{File: "user.crontab", Line: 9, Expr: "30 3 * * 1-5", Env: uenv1, Task: "weekday-report",
				Command: "/usr/local/bin/catchup run --task=weekday-report --tolerance 5m -- ./report.sh --all"},
			{File: "user.crontab", Line: 13, Expr: "15 4 1 * *", Env: uenv2, TZ: "Europe/Berlin", Task: "monthly-mail",
				Command: `catchup run --task monthly-mail --timeout 1h -- mail -s "50% done" ops`, Stdin: "Hello,\nthe report is ready.\n"},
			{File: "user.crontab", Line: 14, Expr: "@daily", Env: uenv2, TZ: "Europe/Berlin", Task: "nightly.backup", Zone: "UTC", Replay: "latest",
				Command: "catchup run --task 'nightly.backup' --tz UTC --replay latest --force -- /opt/backup.sh 'arg with spaces'"},
			{File: "user.crontab", Line: 17, Expr: "45 6 * * *", Env: uenv2, TZ: "Europe/Berlin", Task: "quoted-task", DB: "/var/lib/catchup/my db.sqlite",
				Command: `catchup run --task "quoted-task" --wait --db "/var/lib/catchup/my db.sqlite" -- echo "it's done" > /dev/null`},
		}, errs: []string{"user.crontab:15: @reboot has no time slot, so scan replays nothing of it and leaves the line out; cron still runs it at each boot (to quiet this, run the @reboot command without catchup run)",
			"user.crontab:16: expected 5 time fields before the command, found 4"}},
		"system.crontab": {system: true, want: []Entry{
			{File: "system.crontab", Line: 8, Expr: "0 2 * * *", User: "backup", Env: senv1, Task: "db-dump",
				Command: "catchup run --task db-dump --slot 1h -- /usr/local/sbin/db-dump"},
			{File: "system.crontab", Line: 9, Expr: "@weekly", User: "www-data", Env: senv1, Task: "cache-purge",
				Cron: "0 0 * * 0", Command: `/usr/bin/catchup run --task cache-purge --cron "0 0 * * 0" -- php /srv/purge.php`},
			{File: "system.crontab", Line: 12, Expr: "30 1 * * 1", User: "root", Env: senv2, TZ: "Asia/Tokyo", Task: "weekly-sync",
				Command: "catchup run --task weekly-sync --retries 3 --retry-delay=30s --no-capture -- rsync -a /src/ /dst/"},
		}, errs: []string{"system.crontab:10: missing user field before the command (system crontab)"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "crontabs", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, errs := Parse(f, name, tc.system)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("entries mismatch\n got: %#v\nwant: %#v", got, tc.want)
			}
			if fmt.Sprint(errs) != fmt.Sprint(tc.errs) {
				t.Errorf("errors = %q, want %q", errs, tc.errs)
			}
		})
	}
}

func TestErrorWrapping(t *testing.T) {
	_, errs := Parse(strings.NewReader("\n\n@reboot catchup run --task a -- true\n"), "f.cron", false)
	if len(errs) != 1 {
		t.Fatalf("errs = %v", errs)
	}
	var ce *Error
	if !errors.As(errs[0], &ce) || ce.File != "f.cron" || ce.Line != 3 || !errors.Is(errs[0], errReboot) {
		t.Fatalf("error = %#v", errs[0])
	}
	if got, want := ce.Error(), "f.cron:3: @reboot has no time slot, so scan replays nothing of it and leaves the line out; cron still runs it at each boot (to quiet this, run the @reboot command without catchup run)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestParseLongLines(t *testing.T) {
	arg := strings.Repeat("a", 1<<20)
	huge := strings.Repeat("catchup ", maxLine/8+1)
	in := "0 2 * * * catchup run --task a -- echo " + arg + "\n" + huge + "\n" + strings.Repeat("b", maxLine+10) +
		"\n0 3 * * * catchup run --task b -- true"
	want := []Entry{catchupLine(1, "0 2 * * *", "catchup run --task a -- echo "+arg, "a"), catchupLine(4, "0 3 * * *", "catchup run --task b -- true", "b")}
	checkParse(t, in, false, want, []string{"t:2: line longer than"})
}

func TestParseReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("0 2 * * * catchup run --task a -- true\n0 3 * * * catch"), iotest.ErrReader(boom))
	got, errs := Parse(r, "t", false)
	if len(got) != 1 || got[0].Task != "a" || len(errs) != 1 || !errors.Is(errs[0], boom) || !strings.HasPrefix(errs[0].Error(), "t:2: read crontab: ") {
		t.Fatalf("got %v, errs %v", got, errs)
	}
}

func TestParseEnvSnapshotsAreIndependent(t *testing.T) {
	got, _ := Parse(strings.NewReader("A=1\n* * * * * catchup run --task a -- true\n* * * * * catchup run --task b -- true\n"), "t", false)
	got[0].Env[0] = "A=changed"
	if got[1].Env[0] != "A=1" {
		t.Fatalf("entries share Env: %v", got[1].Env)
	}
}

func TestIsSystem(t *testing.T) {
	for path, want := range map[string]bool{
		"/etc/crontab": true, "/etc/cron.d/backup": true, "/etc//cron.d/./x": true, "/etc/cron.d": false, "/etc/cron.d/": false,
		"/etc/cron.d/sub/x": false, "/var/spool/cron/crontabs/root": false, "etc/crontab": false, "/etc/crontab.bak": false,
	} {
		if got := IsSystem(path); got != want {
			t.Errorf("IsSystem(%q) = %v, want %v", path, got, want)
		}
	}
}
