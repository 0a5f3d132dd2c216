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
		"URL pass with an @":  {"curl https://user:S3c@ret@host/x", "curl https://user:***@host/x"},
		"URL pass quoted":     {"curl https://user:'S3cret'@host/x", "curl https://user:***@host/x"},
		"URL pass in part":    {`curl https://user:S3'c'"et"@host/x`, "curl https://user:***@host/x"},
		"quoted in sh -c":     {`sh -c "curl https://user:'S3cret'@host/x && true"`, `sh -c "curl https://user:***@host/x && true"`},
		"URL pass from a var": {`curl https://user:"$PW"@host/x`, `curl https://user:"$PW"@host/x`},
		"@ after the path":    {"curl https://user:S3cret@host/x@y", "curl https://user:***@host/x@y"},
		"@ in the next word":  {`sh -c 'curl https://u:S3cret@h' && echo 'x@y'`, `sh -c 'curl https://u:***@h' && echo 'x@y'`},
		"query string":        {"curl 'https://h/x?a=1&token=S3cret&b=2'", "curl 'https://h/x?a=1&token=***&b=2'"},
		"api_key in query":    {"wget https://h/x?API_KEY=S3cret", "wget https://h/x?API_KEY=***"},
		"--password=":         {"tool --password=S3cret -v", "tool --password=*** -v"},
		"--password quoted":   {`tool --password="S3 cret" -v`, `tool --password="***" -v`},
		"--password space":    {"tool --password S3cret -v", "tool --password *** -v"},
		"--token space":       {"tool --token 'S3cret' -v", "tool --token '***' -v"},
		"env assignment":      {"PGPASSWORD=S3cret pg_dump x", "PGPASSWORD=*** pg_dump x"},
		"env quoted":          {"DB_PASSWORD='S3cret' API_TOKEN=\"S3cret\" CLIENT_SECRET=S3cret job", "DB_PASSWORD='***' API_TOKEN=\"***\" CLIENT_SECRET=*** job"},
		"aws secret key":      {"AWS_SECRET_ACCESS_KEY=S3cret aws s3 ls", "AWS_SECRET_ACCESS_KEY=*** aws s3 ls"},
		"mysql pwd variable":  {"MYSQL_PWD=S3cret mysqldump db", "MYSQL_PWD=*** mysqldump db"},
		"slack webhook":       {`curl -d @msg 'https://hooks.slack.com/services/T000/B000/S3cretS3cret'`, `curl -d @msg 'https://hooks.slack.com/services/***'`},
		"discord webhook":     {"curl -d x https://discord.com/api/webhooks/123/S3cret-tok", "curl -d x https://discord.com/api/webhooks/***"},
		"discord versioned":   {"curl https://discord.com/api/v10/webhooks/123/S3cret", "curl https://discord.com/api/v10/webhooks/***"},
		"webhook with a var":  {`curl "https://hooks.slack.com/services/T0/B0/S3cret${SUFFIX}"`, `curl "https://hooks.slack.com/services/***"`},
		"webhook var first":   {"curl https://hooks.slack.com/services/${TEAM}/B0/S3cret", "curl https://hooks.slack.com/services/***"},
		"webhook upper case":  {"curl HTTPS://HOOKS.SLACK.COM/services/T/B/S3cret", "curl HTTPS://HOOKS.SLACK.COM/services/***"},
		"webhook no scheme":   {"curl hooks.slack.com/workflows/T/B/S3cret;echo ok", "curl hooks.slack.com/workflows/***;echo ok"},
		"slack gov":           {"curl https://hooks.slack-gov.com/triggers/T/B/S3cret", "curl https://hooks.slack-gov.com/triggers/***"},
		"webhook path in var": {"curl https://hooks.slack.com/services/$SLACK_PATH", "curl https://hooks.slack.com/services/$SLACK_PATH"},
		"a _PWD directory":    {"env START_PWD=/srv/app SAVED_PWD=/opt APP_PWD_ROOT=/x true", "env START_PWD=/srv/app SAVED_PWD=/opt APP_PWD_ROOT=/x true"},
		"case-insensitive":    {"x Passwd=S3cret pwd_x=1", "x Passwd=*** pwd_x=1"},
		"mysql glued -p":      {"mysql -uroot -pS3cret db", "mysql -uroot -p*** db"},
		"mysqldump in sh":     {"cd /x && /usr/bin/mysqldump -pS3cret db > d.sql", "cd /x && /usr/bin/mysqldump -p*** db > d.sql"},
		"-p of another tool":  {"mkdir -pS3 /x; ssh -p2222 h", "mkdir -pS3 /x; ssh -p2222 h"},
		"mysql then other":    {"mysql -pS3cret db; ssh -p2222 h", "mysql -p*** db; ssh -p2222 h"},
		"bearer header":       {`curl -H "Authorization: Bearer S3cret" https://h`, `curl -H "Authorization: Bearer ***" https://h`},
		"basic header":        {`curl -H 'authorization: Basic dXNlcjpTM2NyZXQ=' https://h`, `curl -H 'authorization: Basic ***' https://h`},
		"bare authorization":  {`curl -H "Authorization:S3cret" https://h`, `curl -H "Authorization:***" https://h`},
		"tokens is no secret": {"llm max_tokens=5 --tokens 5", "llm max_tokens=5 --tokens 5"},
		"empty":               {"", ""},
		// False positives: each would make an ordinary task un-replayable.
		"find -prune in mysql dir": {"find /var/lib/mysql -prune", "find /var/lib/mysql -prune"},
		"tar -C mysql dir":         {"tar -C /var/lib/mysql -pczf x", "tar -C /var/lib/mysql -pczf x"},
		"mysql-tools script":       {"/opt/mysql-tools/rotate.sh -prune", "/opt/mysql-tools/rotate.sh -prune"},
		"find -name mysql":         {"find /tmp -name mysql -prune -o -print", "find /tmp -name mysql -prune -o -print"},
		"OLDPWD":                   {"env OLDPWD=/srv true", "env OLDPWD=/srv true"},
		"PWD":                      {"PWD=/srv true", "PWD=/srv true"},
		"--pwd dir":                {"tool --pwd /tmp", "tool --pwd /tmp"},
		"variable value":           {`PGPASSWORD="$PGPASS" pg_dump`, `PGPASSWORD="$PGPASS" pg_dump`},
		"bare variable value":      {"PGPASSWORD=$PGPASS pg_dump; x --password ${PW} --token=$T", "PGPASSWORD=$PGPASS pg_dump; x --password ${PW} --token=$T"},
		"command substitution":     {"PGPASSWORD=$(cat /etc/pg.pass) pg_dump", "PGPASSWORD=$(cat /etc/pg.pass) pg_dump"},
		"backticks":                {"PGPASSWORD=`cat /etc/pg.pass` pg_dump", "PGPASSWORD=`cat /etc/pg.pass` pg_dump"},
		"header from variable":     {`curl -H "Authorization: Bearer $TOKEN" https://h`, `curl -H "Authorization: Bearer $TOKEN" https://h`},
		"mysql -p variable":        {`mysql -p"$PW" db`, `mysql -p"$PW" db`},
		"--no-password":            {"psql --no-password db", "psql --no-password db"},
		"mysql after env":          {"env MYSQL_HOST=x nice -n 5 mysql -pS3cret db", "env MYSQL_HOST=x nice -n 5 mysql -p*** db"},
		"mysql in sh -c":           {`sh -c 'mysqldump -pS3cret db' && find /x -prune`, `sh -c 'mysqldump -p*** db' && find /x -prune`},
		"PGPASSFILE":               {"PGPASSFILE=/etc/pg.pass DB_PASS_FILE=/x pg_dump", "PGPASSFILE=/etc/pg.pass DB_PASS_FILE=/x pg_dump"},
		"short URL user":           {"git clone https://git@github.com/x", "git clone https://git@github.com/x"},
		// False negatives: each stored a secret.
		"--client-secret space": {"job --client-secret S3cret", "job --client-secret ***"},
		"--db-password space":   {"job --db-password S3cret -v", "job --db-password *** -v"},
		"--db-password=":        {"job --db-password=S3cret", "job --db-password=***"},
		"SECRET_KEY=":           {"SECRET_KEY=S3cret job", "SECRET_KEY=*** job"},
		"DB_PASS=":              {"env DB_PASS=S3cret job", "env DB_PASS=*** job"},
		"quoted assignment":     {`exec: "DB_PASS=S3cret": not found; sh -c "SECRET_KEY=S3cret job"`, `exec: "DB_PASS=***": not found; sh -c "SECRET_KEY=*** job"`},
		"private key var":       {"GPG_PRIVATE_KEY='S3cret' job", "GPG_PRIVATE_KEY='***' job"},
		"borg passphrase":       {"BORG_PASSPHRASE=S3cret borg create ::x /srv", "BORG_PASSPHRASE=*** borg create ::x /srv"},
		"duplicity PASSPHRASE":  {"PASSPHRASE='S3cret' duplicity /srv file:///b", "PASSPHRASE='***' duplicity /srv file:///b"},
		"gpg --passphrase":      {"gpg --batch --passphrase S3cret -c f; gpg --passphrase=S3cret -c g", "gpg --batch --passphrase *** -c f; gpg --passphrase=*** -c g"},
		"passphrase in JSON":    {`curl -d '{"passphrase":"S3cret"}' https://h`, `curl -d '{"passphrase":"***"}' https://h`},
		"SSHPASS variable":      {"SSHPASS=S3cret sshpass -e ssh h", "SSHPASS=*** sshpass -e ssh h"},
		"REDISCLI_AUTH":         {"env REDISCLI_AUTH=S3cret redis-cli ping", "env REDISCLI_AUTH=*** redis-cli ping"},
		"passphrase fd or file": {"gpg --passphrase-fd 0 --passphrase-file /k -c f", "gpg --passphrase-fd 0 --passphrase-file /k -c f"},
		"X-Api-Key header":      {`curl -H 'X-Api-Key: S3cret' https://h`, `curl -H 'X-Api-Key: ***' https://h`},
		"PRIVATE-TOKEN header":  {`curl -H "PRIVATE-TOKEN: S3cret" https://h`, `curl -H "PRIVATE-TOKEN: ***" https://h`},
		"cookie header":         {`curl -H "Cookie: a=S3cret; b=S3cret" https://h`, `curl -H "Cookie: ***" https://h`},
		"mysql in ssh's word":   {`ssh db "mysql -pS3cret -e 'select 1'"`, `ssh db "mysql -p*** -e 'select 1'"`},
		"redis-cli in a word":   {"ssh db 'redis-cli -a S3cret ping'", "ssh db 'redis-cli -a *** ping'"},
		"-p in a quoted word":   {`ssh db "tar -pczf x ."`, `ssh db "tar -pczf x ."`},
		"unquoted header":       {"curl -H X-Api-Key:S3cret https://h", "curl -H X-Api-Key:*** https://h"},
		"unquoted glued -H":     {"curl -sHAuthorization:S3cret https://h", "curl -sHAuthorization:*** https://h"},
		"unquoted --header=":    {"wget --header=X-Auth-Token:S3cret https://h", "wget --header=X-Auth-Token:*** https://h"},
		"--header='...'":        {"wget --header='Authorization: Bearer S3cret' h", "wget --header='Authorization: Bearer ***' h"},
		"unquoted from a var":   {"curl -H X-Api-Key:$KEY https://h", "curl -H X-Api-Key:$KEY https://h"},
		"unquoted other header": {"curl -H Accept:text/plain https://h", "curl -H Accept:text/plain https://h"},
		"key: in a word":        {"redis-cli get session:token:1", "redis-cli get session:token:1"},
		"token as URL user":     {"git clone https://ghp_S3cretS3cret@github.com/x", "git clone https://***@github.com/x"},
		"long URL user":         {"git clone https://S3cretS3cretS3cretS3cretS3cret12@h/x", "git clone https://***@h/x"},
		"sshpass -p":            {"sshpass -p S3cret ssh -p 2222 h", "sshpass -p *** ssh -p 2222 h"},
		"sshpass glued":         {"sshpass -pS3cret ssh h", "sshpass -p*** ssh h"},
		"curl -u":               {"curl -u admin:S3cret https://h", "curl -u admin:*** https://h"},
		"curl --user":           {"curl -s --user admin:S3cret https://h", "curl -s --user admin:*** https://h"},
		"curl -u glued":         {"curl -uadmin:S3cret https://h", "curl -uadmin:*** https://h"},
		"curl --user=":          {"curl --user=admin:S3cret https://h", "curl --user=admin:*** https://h"},
		"curl -u quoted":        {`curl -u 'admin:S3 cret' https://h; curl -u"a:S3cret" h`, `curl -u 'admin:***' https://h; curl -u"a:***" h`},
		"curl colon in pass":    {"curl -u admin:S3cret:x https://h", "curl -u admin:*** https://h"},
		"curl --proxy-user":     {"curl -U p:S3cret --proxy-user=p:S3cret h", "curl -U p:*** --proxy-user=p:*** h"},
		"curl -u in sh -c":      {`sh -c 'curl -u admin:S3cret h'`, `sh -c 'curl -u admin:*** h'`},
		"wget --password":       {"wget --user u --password S3cret --http-password=S3cret h", "wget --user u --password *** --http-password=*** h"},
		"redis-cli -a":          {"redis-cli -h db -a S3cret ping", "redis-cli -h db -a *** ping"},
		"redis-cli --pass":      {"/usr/bin/redis-cli --pass 'S3cret' ping", "/usr/bin/redis-cli --pass '***' ping"},
		// Not a password: kept.
		"curl -u no colon":       {"curl -u admin https://h", "curl -u admin https://h"},
		"curl -u empty password": {"curl -u admin: https://h", "curl -u admin: https://h"},
		"curl -u variable":       {`curl -u "$CREDS" https://h; curl -u admin:$PASS h`, `curl -u "$CREDS" https://h; curl -u admin:$PASS h`},
		"curl --user-agent":      {"curl --user-agent a:b --url https://h", "curl --user-agent a:b --url https://h"},
		"-u of another program":  {"sort -u x; cut -d: -f1 -u y; ps -u a:b", "sort -u x; cut -d: -f1 -u y; ps -u a:b"},
		"redis-cli -a variable":  {`redis-cli -a "$REDIS_PASS" ping`, `redis-cli -a "$REDIS_PASS" ping`},
		"-a of another program":  {"ls -a /srv; cp -a x y", "ls -a /srv; cp -a x y"},
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
		"URL pass with @": {[]string{"curl", "https://u:S3c@ret@h/x"}, []string{"curl", "https://u:***@h/x"}},
		"header word":     {[]string{"curl", "-H", "Authorization: Bearer S3cret", "https://h"}, []string{"curl", "-H", "Authorization: Bearer ***", "https://h"}},
		"flag at the end": {[]string{"tool", "--token"}, []string{"tool", "--token"}},
		"one word":        {[]string{"true"}, []string{"true"}},
		"find -prune":     {[]string{"find", "/var/lib/mysql", "-prune"}, []string{"find", "/var/lib/mysql", "-prune"}},
		"tar -p":          {[]string{"tar", "-C", "/var/lib/mysql", "-pczf", "x"}, []string{"tar", "-C", "/var/lib/mysql", "-pczf", "x"}},
		"mysql as sudo's": {[]string{"sudo", "-u", "db", "mysql", "-pS3cret"}, []string{"sudo", "-u", "db", "mysql", "-p***"}},
		"sh -c find":      {[]string{"sh", "-c", "find /var/lib/mysql -prune"}, []string{"sh", "-c", "find /var/lib/mysql -prune"}},
		"sh -c mysql":     {[]string{"sh", "-c", "mysql -pS3cret"}, []string{"sh", "-c", "mysql -p***"}},
		"--db-password":   {[]string{"job", "--db-password", "S3cret"}, []string{"job", "--db-password", "***"}},
		"--client-secret": {[]string{"job", "--client-secret", "S3cret"}, []string{"job", "--client-secret", "***"}},
		"api key header":  {[]string{"curl", "-H", "X-Api-Key: S3cret"}, []string{"curl", "-H", "X-Api-Key: ***"}},
		"-H glued":        {[]string{"curl", "-HAuthorization: token S3cret", "h"}, []string{"curl", "-HAuthorization: token ***", "h"}},
		"-sH glued":       {[]string{"curl", "-sHX-Api-Key: S3cret", "h"}, []string{"curl", "-sHX-Api-Key: ***", "h"}},
		"--header=":       {[]string{"wget", "--header=Authorization: Bearer S3cret", "h"}, []string{"wget", "--header=Authorization: Bearer ***", "h"}},
		"-H $VAR glued":   {[]string{"curl", "-HAuthorization: Bearer $TOKEN"}, []string{"curl", "-HAuthorization: Bearer $TOKEN"}},
		"-H other header": {[]string{"curl", "-HAccept: text/plain"}, []string{"curl", "-HAccept: text/plain"}},
		"sshpass -p":      {[]string{"sshpass", "-p", "S3cret", "ssh", "-p", "22", "h"}, []string{"sshpass", "-p", "***", "ssh", "-p", "22", "h"}},
		"ssh -p":          {[]string{"ssh", "-p", "22", "h"}, []string{"ssh", "-p", "22", "h"}},
		"curl -u":         {[]string{"curl", "-u", "admin:S3cret", "h"}, []string{"curl", "-u", "admin:***", "h"}},
		"curl --user=":    {[]string{"curl", "--user=admin:S3cret"}, []string{"curl", "--user=admin:***"}},
		"curl -u no pass": {[]string{"curl", "-u", "admin", "h"}, []string{"curl", "-u", "admin", "h"}},
		"sort -u":         {[]string{"sort", "-u", "a:b"}, []string{"sort", "-u", "a:b"}},
		"redis-cli -a":    {[]string{"redis-cli", "-a", "S3cret", "ping"}, []string{"redis-cli", "-a", "***", "ping"}},
		"ls -a":           {[]string{"ls", "-a", "x"}, []string{"ls", "-a", "x"}},
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
	for _, s := range []string{"psql \"password=x\"", "https://u:p@h", "mysql -px", "--token t", "Authorization: Basic x", "PGPASSWORD='x' y", "a=b&c", "curl -u a:b", "curl -sSfu a:b -E c:p --pass x", "ssh h 'curl -su a:b'", "redis-cli -a x",
		`curl "https://u:p'w@h" //u:p@h/db 'https://h/x?sig=s&key=k'`, `curl -d '{"password":"x"}' -d "{\"token\":\"t\"}"`,
		"docker exec -it db mysql -px", "docker login -p x", "openssl enc -k x -pass pass:y", "zip -P x a", "smbclient -U 'u%p'",
		`psql -c "ALTER ROLE a PASSWORD 'x'"`, `mysql -e 'SET PASSWORD = PASSWORD('\''x'\'')'`, "x password = y", "ldapsearch -w x",
		"sqlplus a/b@c", "htpasswd -nb u p", "keytool -storepass x", "GITHUB_PAT=x DB_PW=y", "rclone --sftp-pass x", ""} {
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
		argv := Argv([]string{"docker", "exec", s, s})
		if again := Argv(argv); !reflect.DeepEqual(again, argv) {
			t.Fatalf("Argv not idempotent: %q -> %q", argv, again)
		}
	})
}

func TestMasked(t *testing.T) {
	tests := map[string]struct {
		in   string
		want bool
	}{
		"nothing masked":   {"curl https://h/x", false},
		"--token=":         {"page --token=***", true},
		"--password space": {"tool --password '***' -v", true},
		"bearer header":    {`curl -H "Authorization: Bearer ***" https://h`, true},
		"URL password":     {"curl https://u:***@h/x", true},
		"URL token user":   {"git clone https://***@github.com/x", true},
		"mysql -p":         {"mysql -p*** db", true},
		"curl -u":          {"curl -u admin:*** h", true},
		"redis-cli -a":     {"redis-cli -a *** ping", true},
		"a mask as text":   {"echo '***' failed", false},
		"a mask as a glob": {"rm /tmp/***", false},
		"a reference":      {`curl -H "Authorization: Bearer $HOOK_TOKEN" https://h`, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Masked(tc.in); got != tc.want {
				t.Errorf("Masked(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
