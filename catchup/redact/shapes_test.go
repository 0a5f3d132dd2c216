package redact

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// shape is one case of a secret's shape: argv as Argv masks it (want),
// and the same command as a crontab shell line as Command masks it. The
// line is argv quoted as sh would read it, unless line says otherwise.
type shape struct {
	argv, want     []string
	line, lineWant string
}

// shellWord is w quoted for sh when it needs it ('...'), a mask (***)
// left bare as Command leaves an unquoted one.
func shellWord(w string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./*-]+$`).MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func shellLineOf(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

// checkShapes checks each case through Argv and through Command: masked as
// wanted, no secret (S3cret) left, idempotent, and Masked once masked.
func checkShapes(t *testing.T, tests map[string]shape) {
	t.Helper()
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Argv(tc.argv)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Argv(%q)\n = %q\nwant %q", tc.argv, got, tc.want)
			}
			if again := Argv(got); !reflect.DeepEqual(again, got) {
				t.Errorf("Argv is not idempotent on %q: %q", got, again)
			}
			line, lineWant := tc.line, tc.lineWant
			if line == "" {
				line, lineWant = shellLineOf(tc.argv), shellLineOf(tc.want)
			}
			gotLine := Command(line)
			if gotLine != lineWant {
				t.Errorf("Command(%q)\n = %q\nwant %q", line, gotLine, lineWant)
			}
			if again := Command(gotLine); again != gotLine {
				t.Errorf("Command is not idempotent on %q: %q", gotLine, again)
			}
			if strings.Contains(strings.Join(got, " "), "S3cret") || strings.Contains(gotLine, "S3cret") {
				t.Errorf("the secret is kept: %q, %q", got, gotLine)
			}
			if masked := !reflect.DeepEqual(tc.argv, tc.want); masked != Masked(lineWant) {
				t.Errorf("Masked(%q) = %v, want %v", lineWant, !masked, masked)
			}
		})
	}
}

func TestURLUserinfo(t *testing.T) {
	checkShapes(t, map[string]shape{
		"literal quote in password": {
			argv: []string{"curl", "https://u:S3c'ret@h/x"}, want: []string{"curl", "https://u:***@h/x"},
			line: `curl "https://u:S3c'ret@h/x"`, lineWant: `curl "https://u:***@h/x"`},
		"literal double quote": {
			argv: []string{"curl", `https://u:S3c"ret@h/x`}, want: []string{"curl", "https://u:***@h/x"},
			line: `curl 'https://u:S3c"ret@h/x'`, lineWant: `curl 'https://u:***@h/x'`},
		"quote and @ in password": {
			argv: []string{"psql", `postgres://app:S3c'r@et@db/app`}, want: []string{"psql", "postgres://app:***@db/app"},
			line: `psql 'postgres://app:S3c'\''r@et@db/app'`, lineWant: `psql 'postgres://app:***@db/app'`},
		"a quote closing the word": {
			argv: []string{"curl", "https://u:S3cret@h/x"}, want: []string{"curl", "https://u:***@h/x"},
			line: `curl 'https://u:S3c'ret@h/x`, lineWant: `curl 'https://u:***'@h/x`},
		"scheme-less":            {argv: []string{"mysqldump", "//u:S3cret@h/db"}, want: []string{"mysqldump", "//u:***@h/db"}},
		"scheme-less after =":    {argv: []string{"job", "--url=//u:S3cret@h/db"}, want: []string{"job", "--url=//u:***@h/db"}},
		"scheme-less token":      {argv: []string{"git", "clone", "//ghp_S3cretS3cret@github.com/x"}, want: []string{"git", "clone", "//***@github.com/x"}},
		"path with // kept":      {argv: []string{"rsync", "/srv//a:b@c", "x"}, want: []string{"rsync", "/srv//a:b@c", "x"}},
		"smb share kept":         {argv: []string{"smbclient", "//h/share"}, want: []string{"smbclient", "//h/share"}},
		"scheme-less no pass":    {argv: []string{"x", "//user@h/db"}, want: []string{"x", "//user@h/db"}},
		"scheme-less from a var": {argv: []string{"x", "//u:$PW@h/db"}, want: []string{"x", "//u:$PW@h/db"}, line: `x //u:"$PW"@h/db`, lineWant: `x //u:"$PW"@h/db`},
	})
}

func TestQuerySecrets(t *testing.T) {
	checkShapes(t, map[string]shape{
		"?token=":         {argv: []string{"curl", "https://x/y?token=S3cret"}, want: []string{"curl", "https://x/y?token=***"}},
		"?key=":           {argv: []string{"curl", "https://x/y?key=S3cret"}, want: []string{"curl", "https://x/y?key=***"}},
		"?sig= then more": {argv: []string{"curl", "https://x/y?sig=S3cret&a=1"}, want: []string{"curl", "https://x/y?sig=***&a=1"}},
		"&signature=":     {argv: []string{"curl", "https://x/y?a=1&signature=S3cret"}, want: []string{"curl", "https://x/y?a=1&signature=***"}},
		"X-Amz-Signature": {argv: []string{"curl", "https://b.s3/k?X-Amz-Date=1&X-Amz-Signature=S3cret"}, want: []string{"curl", "https://b.s3/k?X-Amz-Date=1&X-Amz-Signature=***"}},
		"&access_token=":  {argv: []string{"curl", "https://x/y?a=1&access_token=S3cret"}, want: []string{"curl", "https://x/y?a=1&access_token=***"}},
		"?api_key=":       {argv: []string{"curl", "https://x/y?api_key=S3cret"}, want: []string{"curl", "https://x/y?api_key=***"}},
		"?password=":      {argv: []string{"curl", "https://x/y?password=S3cret"}, want: []string{"curl", "https://x/y?password=***"}},
		"?auth= ?pass=":   {argv: []string{"curl", "https://x/y?auth=S3cret", "https://x/z?pass=S3cret"}, want: []string{"curl", "https://x/y?auth=***", "https://x/z?pass=***"}},
		// Not a secret: kept.
		"other keys":     {argv: []string{"curl", "https://x/y?sort_key=name&monkey=1&page=2"}, want: []string{"curl", "https://x/y?sort_key=name&monkey=1&page=2"}},
		"key= no URL":    {argv: []string{"make", "key=value", "sig=1"}, want: []string{"make", "key=value", "sig=1"}},
		"?key= from var": {argv: []string{"curl", "https://x/y?key=$KEY"}, want: []string{"curl", "https://x/y?key=$KEY"}, line: `curl "https://x/y?key=$KEY"`, lineWant: `curl "https://x/y?key=$KEY"`},
	})
}

func TestJSONSecrets(t *testing.T) {
	checkShapes(t, map[string]shape{
		"password":      {argv: []string{"curl", "-d", `{"password":"S3cret"}`, "h"}, want: []string{"curl", "-d", `{"password":"***"}`, "h"}},
		"token spaced":  {argv: []string{"curl", "-d", `{"user": "a", "token": "S3cret"}`, "h"}, want: []string{"curl", "-d", `{"user": "a", "token": "***"}`, "h"}},
		"secret":        {argv: []string{"curl", "--data", `{"secret":"S3cret"}`}, want: []string{"curl", "--data", `{"secret":"***"}`}},
		"client_secret": {argv: []string{"curl", "-d", `{"client_secret":"S3cret","n":1}`}, want: []string{"curl", "-d", `{"client_secret":"***","n":1}`}},
		"apiKey":        {argv: []string{"http", "POST", "h", `{"apiKey":"S3cret"}`}, want: []string{"http", "POST", "h", `{"apiKey":"***"}`}},
		"escaped quote": {argv: []string{"curl", "-d", `{"password":"S3c\"ret"}`}, want: []string{"curl", "-d", `{"password":"***"}`}},
		"escaped in a double-quoted word": {
			argv: []string{"curl", "-d", `{"password":"S3cret"}`}, want: []string{"curl", "-d", `{"password":"***"}`},
			line: `curl -d "{\"password\":\"S3cret\"}"`, lineWant: `curl -d "{\"password\":\"***\"}"`},
		// Not a secret: kept.
		"max_tokens":    {argv: []string{"curl", "-d", `{"max_tokens":5,"token_type":"bearer"}`}, want: []string{"curl", "-d", `{"max_tokens":5,"token_type":"bearer"}`}},
		"null password": {argv: []string{"curl", "-d", `{"password":null}`}, want: []string{"curl", "-d", `{"password":null}`}},
		"from a var":    {argv: []string{"curl", "-d", `{"token":"$TOKEN"}`}, want: []string{"curl", "-d", `{"token":"$TOKEN"}`}, line: `curl -d "{\"token\":\"$TOKEN\"}"`, lineWant: `curl -d "{\"token\":\"$TOKEN\"}"`},
	})
}

func TestPasswordOptions(t *testing.T) {
	checkShapes(t, map[string]shape{
		// mysql's glued -p, run by a wrapper.
		"docker exec mysql":        {argv: []string{"docker", "exec", "db", "mysql", "-pS3cret"}, want: []string{"docker", "exec", "db", "mysql", "-p***"}},
		"docker exec -it -u":       {argv: []string{"docker", "exec", "-it", "-u", "root", "db", "mysqldump", "-uroot", "-pS3cret", "x"}, want: []string{"docker", "exec", "-it", "-u", "root", "db", "mysqldump", "-uroot", "-p***", "x"}},
		"docker run mysql":         {argv: []string{"docker", "run", "--rm", "--network", "n", "-e", "A=1", "mysql:8", "mysql", "-hdb", "-pS3cret"}, want: []string{"docker", "run", "--rm", "--network", "n", "-e", "A=1", "mysql:8", "mysql", "-hdb", "-p***"}},
		"docker compose exec":      {argv: []string{"docker", "compose", "exec", "-T", "db", "mysql", "-pS3cret"}, want: []string{"docker", "compose", "exec", "-T", "db", "mysql", "-p***"}},
		"kubectl exec":             {argv: []string{"kubectl", "exec", "-n", "x", "pod", "--", "mysql", "-pS3cret"}, want: []string{"kubectl", "exec", "-n", "x", "pod", "--", "mysql", "-p***"}},
		"ssh mysql":                {argv: []string{"ssh", "-p", "2222", "db", "mysql", "-pS3cret"}, want: []string{"ssh", "-p", "2222", "db", "mysql", "-p***"}},
		"docker exec sshpass":      {argv: []string{"docker", "exec", "x", "sshpass", "-p", "S3cret", "ssh", "h"}, want: []string{"docker", "exec", "x", "sshpass", "-p", "***", "ssh", "h"}},
		"timeout sshpass":          {argv: []string{"timeout", "30", "sshpass", "-pS3cret", "ssh", "-p", "22", "h"}, want: []string{"timeout", "30", "sshpass", "-p***", "ssh", "-p", "22", "h"}},
		"docker login -p":          {argv: []string{"docker", "login", "-u", "me", "-p", "S3cret", "reg"}, want: []string{"docker", "login", "-u", "me", "-p", "***", "reg"}},
		"docker login -pX":         {argv: []string{"podman", "login", "-pS3cret", "reg"}, want: []string{"podman", "login", "-p***", "reg"}},
		"docker login --password":  {argv: []string{"docker", "login", "--password", "S3cret", "--username=me"}, want: []string{"docker", "login", "--password", "***", "--username=me"}},
		"docker login --password=": {argv: []string{"docker", "--config", "/c", "login", "--password=S3cret"}, want: []string{"docker", "--config", "/c", "login", "--password=***"}},
		"openssl -passin pass:":    {argv: []string{"openssl", "rsa", "-in", "k.pem", "-passin", "pass:S3cret"}, want: []string{"openssl", "rsa", "-in", "k.pem", "-passin", "pass:***"}},
		"openssl -pass pass:":      {argv: []string{"openssl", "enc", "-aes-256-cbc", "-pass", "pass:S3cret", "-passout", "pass:S3cret"}, want: []string{"openssl", "enc", "-aes-256-cbc", "-pass", "pass:***", "-passout", "pass:***"}},
		"openssl pkcs12 -password": {argv: []string{"openssl", "pkcs12", "-export", "-password", "pass:S3cret"}, want: []string{"openssl", "pkcs12", "-export", "-password", "pass:***"}},
		"openssl enc -k":           {argv: []string{"openssl", "enc", "-d", "-k", "S3cret", "-K", "S3cret00"}, want: []string{"openssl", "enc", "-d", "-k", "***", "-K", "***"}},
		"openssl cipher -k":        {argv: []string{"openssl", "aes-256-cbc", "-k", "S3cret"}, want: []string{"openssl", "aes-256-cbc", "-k", "***"}},
		"zip -P":                   {argv: []string{"zip", "-r", "-P", "S3cret", "a.zip", "d"}, want: []string{"zip", "-r", "-P", "***", "a.zip", "d"}},
		"unzip -P":                 {argv: []string{"unzip", "-P", "S3cret", "a.zip"}, want: []string{"unzip", "-P", "***", "a.zip"}},
		"rar -hp -p- kept":         {argv: []string{"rar", "a", "-hpS3cret", "-p-", "a.rar"}, want: []string{"rar", "a", "-hp***", "-p-", "a.rar"}},
		"helm registry login":      {argv: []string{"helm", "registry", "login", "r", "-u", "me", "-p", "S3cret"}, want: []string{"helm", "registry", "login", "r", "-u", "me", "-p", "***"}},
		"docker-compose run":       {argv: []string{"docker-compose", "-f", "c.yml", "run", "--rm", "-e", "A=1", "db", "mysqldump", "-pS3cret"}, want: []string{"docker-compose", "-f", "c.yml", "run", "--rm", "-e", "A=1", "db", "mysqldump", "-p***"}},
		"docker run image login":   {argv: []string{"docker", "run", "img", "login", "-p", "8080"}, want: []string{"docker", "run", "img", "login", "-p", "8080"}},
		"7z -p":                    {argv: []string{"7z", "a", "-pS3cret", "a.7z", "d"}, want: []string{"7z", "a", "-p***", "a.7z", "d"}},
		"smbclient -U":             {argv: []string{"smbclient", "//h/s", "-U", "user%S3cret"}, want: []string{"smbclient", "//h/s", "-U", "user%***"}},
		"smbclient -U glued":       {argv: []string{"smbclient", "-UDOM\\user%S3cret", "//h/s"}, want: []string{"smbclient", "-UDOM\\user%***", "//h/s"}},
		"smbclient --user=":        {argv: []string{"rpcclient", "--user=u%S3cret", "h"}, want: []string{"rpcclient", "--user=u%***", "h"}},
		// Not a secret: kept.
		"docker run -p port":       {argv: []string{"docker", "run", "-p", "8080:80", "nginx"}, want: []string{"docker", "run", "-p", "8080:80", "nginx"}},
		"docker -p before mysql":   {argv: []string{"docker", "run", "--name", "mysql", "-p3306:3306", "mysql:8"}, want: []string{"docker", "run", "--name", "mysql", "-p3306:3306", "mysql:8"}},
		"docker exec -p elsewhere": {argv: []string{"docker", "exec", "db", "tar", "-pczf", "x", "."}, want: []string{"docker", "exec", "db", "tar", "-pczf", "x", "."}},
		"ssh -p":                   {argv: []string{"ssh", "-p", "22", "h", "ls"}, want: []string{"ssh", "-p", "22", "h", "ls"}},
		"ssh -p2222 mysql":         {argv: []string{"ssh", "-p2222", "h", "mysql", "-e", "x"}, want: []string{"ssh", "-p2222", "h", "mysql", "-e", "x"}},
		"openssl env: file:":       {argv: []string{"openssl", "rsa", "-passin", "env:PW", "-passout", "file:/p", "-pass", "stdin"}, want: []string{"openssl", "rsa", "-passin", "env:PW", "-passout", "file:/p", "-pass", "stdin"}},
		"openssl -k elsewhere":     {argv: []string{"openssl", "s_client", "-connect", "h:443"}, want: []string{"openssl", "s_client", "-connect", "h:443"}},
		"zip without -P":           {argv: []string{"zip", "-r", "a.zip", "d"}, want: []string{"zip", "-r", "a.zip", "d"}},
		"7z -p prompt":             {argv: []string{"7z", "x", "-p", "a.7z"}, want: []string{"7z", "x", "-p", "a.7z"}},
		"smbclient -U no pass":     {argv: []string{"smbclient", "-U", "user", "//h/s"}, want: []string{"smbclient", "-U", "user", "//h/s"}},
		"cp -P":                    {argv: []string{"cp", "-P", "a", "b"}, want: []string{"cp", "-P", "a", "b"}},
		"login of another":         {argv: []string{"kubectl", "login", "-p", "8080"}, want: []string{"kubectl", "login", "-p", "8080"}},
	})
}

// TestFileTransferAndMongoPasswords: the password options of MongoDB's
// tools (-p X, -pX), of lftp (-u USER,PASSWORD) and of the ncftp tools
// (-p X), common in backup and mirror crontab lines, each only for its
// program.
func TestFileTransferAndMongoPasswords(t *testing.T) {
	checkShapes(t, map[string]shape{
		"mongodump -p":          {argv: []string{"mongodump", "-u", "admin", "-p", "S3cret", "--out", "/b"}, want: []string{"mongodump", "-u", "admin", "-p", "***", "--out", "/b"}},
		"mongosh -pX":           {argv: []string{"mongosh", "-u", "a", "-pS3cret", "db"}, want: []string{"mongosh", "-u", "a", "-p***", "db"}},
		"mongorestore by path":  {argv: []string{"/usr/bin/mongorestore", "--username", "a", "-p", "S3cret", "/b"}, want: []string{"/usr/bin/mongorestore", "--username", "a", "-p", "***", "/b"}},
		"docker exec mongodump": {argv: []string{"docker", "exec", "m", "mongodump", "-p", "S3cret"}, want: []string{"docker", "exec", "m", "mongodump", "-p", "***"}},
		"lftp -u":               {argv: []string{"lftp", "-u", "user,S3cret", "sftp://h", "-e", "mirror -R /a /b; quit"}, want: []string{"lftp", "-u", "user,***", "sftp://h", "-e", "mirror -R /a /b; quit"}},
		"lftp -u glued":         {argv: []string{"lftp", "-uuser,S3cret", "h"}, want: []string{"lftp", "-uuser,***", "h"}},
		"lftp --user=":          {argv: []string{"lftp", "--user=user,S3cret", "h"}, want: []string{"lftp", "--user=user,***", "h"}},
		"ncftpput -p":           {argv: []string{"ncftpput", "-u", "me", "-p", "S3cret", "h", "/d", "f"}, want: []string{"ncftpput", "-u", "me", "-p", "***", "h", "/d", "f"}},
		// Not a secret: kept.
		"mongosh -p prompts":  {argv: []string{"mongosh", "-u", "a", "-p", "--eval", "x"}, want: []string{"mongosh", "-u", "a", "-p", "--eval", "x"}},
		"mongod --port":       {argv: []string{"mongod", "--port", "27017", "-p", "x"}, want: []string{"mongod", "--port", "27017", "-p", "x"}},
		"lftp -u no password": {argv: []string{"lftp", "-u", "user", "h"}, want: []string{"lftp", "-u", "user", "h"}},
		"lftp -p port":        {argv: []string{"lftp", "-p", "2121", "h"}, want: []string{"lftp", "-p", "2121", "h"}},
		"lftp -u from a var":  {argv: []string{"lftp", "-u", "user,$PW", "h"}, want: []string{"lftp", "-u", "user,$PW", "h"}, line: `lftp -u "user,$PW" h`, lineWant: `lftp -u "user,$PW" h`},
		"scp -P":              {argv: []string{"scp", "-P", "2222", "a", "h:b"}, want: []string{"scp", "-P", "2222", "a", "h:b"}},
	})
}
