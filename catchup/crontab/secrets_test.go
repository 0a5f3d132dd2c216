package crontab

import (
	"strings"
	"testing"
)

func TestRedacted(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"nothing secret": {"catchup run --task t -- /app/job.sh --all", "catchup run --task t -- /app/job.sh --all"},
		"wrapped, query, JSON": {`catchup run --task t -- docker exec -it db mysql -pPW && curl -d '{"token":"PW"}' "https://h/x?sig=PW" //u:PW@h`,
			`catchup run --task t -- docker exec -it db mysql -p*** && curl -d '{"token":"***"}' "https://h/x?sig=***" //u:***@h`},
		"--ping URL": {"catchup run --task t --ping https://hc.example/ping/TOKEN -- true", "catchup run --task t --ping https://hc.example/... -- true"},
		"--ping=URL": {"catchup run --ping='https://hc.example/TOKEN?x=1' -- true", "catchup run --ping='https://hc.example/...' -- true"},
		"CATCHUP_PING_URL": {"CATCHUP_PING_URL=https://hc.example/TOKEN catchup run -- true",
			"CATCHUP_PING_URL=https://hc.example/... catchup run -- true"},
		"--db password": {"catchup run --db 'postgres://u:PW@db:5432/x?sslmode=require' -- true",
			"catchup run --db 'postgres://u@db:5432/x?sslmode=require' -- true"},
		"password parameters": {"CATCHUP_DB=postgresql://u@db/x?password=PW&sslpassword=KP catchup run -- true",
			"CATCHUP_DB=postgresql://u@db/x catchup run -- true"},
		"PGPASSWORD":                {"PGPASSWORD='PW' catchup run --db postgres://u@db/x -- true", "PGPASSWORD='(redacted)' catchup run --db postgres://u@db/x -- true"},
		"a URL that does not parse": {"catchup run --db postgres://u:PW@db:notaport/x -- true", "catchup run --db postgres://(redacted) -- true"},
		"the job's own conninfo": {`catchup run --task t -- psql "host=db password=PW dbname=x" -c 'select 1'`,
			`catchup run --task t -- psql "host=db password=*** dbname=x" -c 'select 1'`},
		"the job's URL":          {"catchup run --task t -- curl -fsS https://u:PW@host/x", "catchup run --task t -- curl -fsS https://u:***@host/x"},
		"the job's variable":     {"catchup run --task t -- sh -c 'API_KEY=PW job'", "catchup run --task t -- sh -c 'API_KEY=*** job'"},
		"mysql -p":               {"catchup run --task t -- mysqldump -uroot -pPW db > /x.sql", "catchup run --task t -- mysqldump -uroot -p*** db > /x.sql"},
		"PGPASSWORD from a file": {"PGPASSWORD=$(cat /etc/pg.pass) catchup run --task t -- pg_dump x", "PGPASSWORD=$(cat /etc/pg.pass) catchup run --task t -- pg_dump x"},
		"PGPASSWORD variable":    {`PGPASSWORD="$PGPASS" catchup run --task t -- pg_dump x`, `PGPASSWORD="$PGPASS" catchup run --task t -- pg_dump x`},
		"find -prune":            {"catchup run --task t -- find /var/lib/mysql -prune", "catchup run --task t -- find /var/lib/mysql -prune"},
		"--ping, a tab":          {"catchup run --task t --ping\thttps://hc.example/TOKEN -- true", "catchup run --task t --ping\thttps://hc.example/... -- true"},
		"--ping quoted":          {`catchup run --task t "--ping" https://hc.example/TOKEN -- true`, `catchup run --task t "--ping" https://hc.example/... -- true`},
		"--ping URL in part quoted": {`catchup run --task t --ping https://hc.example/"TOKEN" -- true`,
			`catchup run --task t --ping https://hc.example/... -- true`},
		"--ping=URL all quoted": {`catchup run "--ping=https://hc.example/TOKEN" -- true`, `catchup run --ping=https://hc.example/... -- true`},
		"--ping $'URL'":         {`catchup run --ping $'https://hc.example/TOKEN' -- true`, `catchup run --ping (redacted) -- true`},
		"--ping after ;":        {"true; catchup run --ping\thttps://hc.example/TOKEN -- true", "true; catchup run --ping\thttps://hc.example/... -- true"},
		"CATCHUP_PING_URL quoted": {`"CATCHUP_PING_URL=https://hc.example/TOKEN" catchup run -- true`,
			`CATCHUP_PING_URL=https://hc.example/... catchup run -- true`},
		"PGPASSWORD, an escaped blank":    {`catchup run --task t -- env PGPASSWORD=PW\ PW psql`, `catchup run --task t -- env PGPASSWORD=(redacted) psql`},
		"PGPASSWORD all quoted":           {`catchup run --task t -- env 'PGPASSWORD=PW PW' psql`, `catchup run --task t -- env PGPASSWORD=(redacted) psql`},
		"--ping-file":                     {"catchup run --ping-file /etc/catchup/ping -- true", "catchup run --ping-file /etc/catchup/ping -- true"},
		"--db password quoted in part":    {`catchup --db postgres://u:"PW"@db/x run -- true`, `catchup --db postgres://u@db/x run -- true`},
		"--db URL quoted in part":         {`catchup --db 'postgres://u:'PW'@db/x?sslmode=require' run -- true`, `catchup --db postgres://u@db/x?sslmode=require run -- true`},
		"CATCHUP_DB password escaped":     {`CATCHUP_DB=postgres://u:P\W@db/x catchup run -- true`, `CATCHUP_DB=postgres://u@db/x catchup run -- true`},
		"--db= password parameter quoted": {`catchup --db=postgresql://u@db/x?password="PW" run -- true`, `catchup --db=postgresql://u@db/x run -- true`},
		"bearer":                          {`catchup run --task t -- curl -H "Authorization: Bearer PW" https://h`, `catchup run --task t -- curl -H "Authorization: Bearer ***" https://h`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Redacted(tc.in)
			if got != tc.want {
				t.Errorf("Redacted(%q)\n = %q\nwant %q", tc.in, got, tc.want)
			}
			for _, secret := range []string{"TOKEN", "PW", "KP"} {
				if strings.Contains(got, secret) {
					t.Errorf("Redacted(%q) keeps %s", tc.in, secret)
				}
			}
		})
	}
}
