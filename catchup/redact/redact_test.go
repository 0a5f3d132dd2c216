package redact

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCommand(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"nothing secret":      {"/app/job.sh --all -p 8080 x=1", "/app/job.sh --all -p 8080 x=1"},
		"psql conninfo":       {`psql "host=db password=S3cret dbname=x" -c 'select 1'`, `psql "host=db password=*** dbname=x" -c 'select 1'`},
		"URL userinfo":        {"curl https://user:S3cret@host/x", "curl https://user:***@host/x"},
		"URL without pass":    {"curl https://user@host/x", "curl https://user@host/x"},
		"query string":        {"curl 'https://h/x?a=1&token=S3cret&b=2'", "curl 'https://h/x?a=1&token=***&b=2'"},
		"api_key in query":    {"wget https://h/x?API_KEY=S3cret", "wget https://h/x?API_KEY=***"},
		"--password=":         {"tool --password=S3cret -v", "tool --password=*** -v"},
		"--password quoted":   {`tool --password="S3 cret" -v`, `tool --password="***" -v`},
		"--password space":    {"tool --password S3cret -v", "tool --password *** -v"},
		"--token space":       {"tool --token 'S3cret' -v", "tool --token '***' -v"},
		"env assignment":      {"PGPASSWORD=S3cret pg_dump x", "PGPASSWORD=*** pg_dump x"},
		"env quoted":          {"DB_PASSWORD='S3cret' API_TOKEN=\"S3cret\" CLIENT_SECRET=S3cret job", "DB_PASSWORD='***' API_TOKEN=\"***\" CLIENT_SECRET=*** job"},
		"aws secret key":      {"AWS_SECRET_ACCESS_KEY=S3cret aws s3 ls", "AWS_SECRET_ACCESS_KEY=*** aws s3 ls"},
		"case-insensitive":    {"x Passwd=S3cret PWD=S3cret", "x Passwd=*** PWD=***"},
		"mysql glued -p":      {"mysql -uroot -pS3cret db", "mysql -uroot -p*** db"},
		"mysqldump in sh":     {"cd /x && /usr/bin/mysqldump -pS3cret db > d.sql", "cd /x && /usr/bin/mysqldump -p*** db > d.sql"},
		"-p of another tool":  {"mkdir -pS3 /x; ssh -p2222 h", "mkdir -pS3 /x; ssh -p2222 h"},
		"mysql then other":    {"mysql -pS3cret db; ssh -p2222 h", "mysql -p*** db; ssh -p2222 h"},
		"bearer header":       {`curl -H "Authorization: Bearer S3cret" https://h`, `curl -H "Authorization: Bearer ***" https://h`},
		"basic header":        {`curl -H 'authorization: Basic dXNlcjpTM2NyZXQ=' https://h`, `curl -H 'authorization: Basic ***' https://h`},
		"bare authorization":  {`curl -H "Authorization:S3cret" https://h`, `curl -H "Authorization:***" https://h`},
		"tokens is no secret": {"llm max_tokens=5 --tokens 5", "llm max_tokens=5 --tokens 5"},
		"empty":               {"", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Command(tc.in)
			if got != tc.want {
				t.Errorf("Command(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
			if strings.Contains(got, "S3cret") || strings.Contains(got, "dXNlcjpTM2NyZXQ") {
				t.Errorf("Command(%q) = %q keeps the secret", tc.in, got)
			}
			if again := Command(got); again != got {
				t.Errorf("Command is not idempotent on %q: %q", got, again)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	tests := map[string]struct{ in, want []string }{
		"nothing secret":  {[]string{"job.sh", "--all"}, []string{"job.sh", "--all"}},
		"--password X":    {[]string{"tool", "--password", "S3cret", "x"}, []string{"tool", "--password", "***", "x"}},
		"--password=X":    {[]string{"tool", "--PASSWORD=S3cret"}, []string{"tool", "--PASSWORD=***"}},
		"mysql glued":     {[]string{"/usr/bin/mysql", "-u", "root", "-pS3cret", "db"}, []string{"/usr/bin/mysql", "-u", "root", "-p***", "db"}},
		"mysql after env": {[]string{"env", "mysql", "-pS3cret"}, []string{"env", "mysql", "-p***"}},
		"-p elsewhere":    {[]string{"ssh", "-p2222", "h"}, []string{"ssh", "-p2222", "h"}},
		"sh -c line":      {[]string{"sh", "-c", "PGPASSWORD=S3cret psql -c 'select 1'"}, []string{"sh", "-c", "PGPASSWORD=*** psql -c 'select 1'"}},
		"conninfo word":   {[]string{"psql", "host=db password=S3cret dbname=x"}, []string{"psql", "host=db password=*** dbname=x"}},
		"URL word":        {[]string{"curl", "https://u:S3cret@h/x"}, []string{"curl", "https://u:***@h/x"}},
		"header word":     {[]string{"curl", "-H", "Authorization: Bearer S3cret", "https://h"}, []string{"curl", "-H", "Authorization: Bearer ***", "https://h"}},
		"flag at the end": {[]string{"tool", "--token"}, []string{"tool", "--token"}},
		"one word":        {[]string{"true"}, []string{"true"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := append([]string(nil), tc.in...)
			got := Argv(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Argv(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(tc.in, in) {
				t.Errorf("Argv changed its argument: %q", tc.in)
			}
			if again := Argv(got); !reflect.DeepEqual(again, got) {
				t.Errorf("Argv is not idempotent on %q: %q", got, again)
			}
		})
	}
}

// FuzzCommand: Command never panics, keeps valid UTF-8 valid, is
// idempotent, and leaves a string with none of the characters a secret's
// shape needs (=, :, a space before a flag's value) as it is.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"psql \"password=x\"", "https://u:p@h", "mysql -px", "--token t", "Authorization: Basic x", "PGPASSWORD='x' y", "a=b&c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Command(s)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Command(%q) = %q: not UTF-8", s, got)
		}
		if again := Command(got); again != got {
			t.Fatalf("Command not idempotent: %q -> %q -> %q", s, got, again)
		}
		if !strings.ContainsAny(s, "=: \t\n") && got != s {
			t.Fatalf("Command(%q) = %q changed a word that cannot hold a secret's shape", s, got)
		}
		if Argv([]string{s, s}) == nil {
			t.Fatal("Argv returned nil")
		}
	})
}
