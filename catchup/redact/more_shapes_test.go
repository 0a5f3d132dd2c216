package redact

import "testing"

// TestSQLPasswords: a password in a SQL statement given on the command
// line (psql -c, mysql -e): ALTER/CREATE ROLE or USER ... PASSWORD 'X',
// IDENTIFIED BY 'X', SET PASSWORD ... = 'X'. Before, each was stored in
// clear. The statement is one argv word; as a line it is quoted for sh,
// its quotes '\” inside a single-quoted word.
func TestSQLPasswords(t *testing.T) {
	checkShapes(t, map[string]shape{
		"ALTER ROLE":         {argv: []string{"psql", "-c", "ALTER ROLE app PASSWORD 'S3cret'"}, want: []string{"psql", "-c", "ALTER ROLE app PASSWORD '***'"}},
		"ALTER USER WITH":    {argv: []string{"psql", "-c", "alter user app with password 'S3cret';"}, want: []string{"psql", "-c", "alter user app with password '***';"}},
		"CREATE ROLE LOGIN":  {argv: []string{"psql", "-c", "CREATE ROLE app WITH LOGIN ENCRYPTED PASSWORD 'S3c''ret'"}, want: []string{"psql", "-c", "CREATE ROLE app WITH LOGIN ENCRYPTED PASSWORD '***'"}},
		"IDENTIFIED BY":      {argv: []string{"mysql", "-e", "ALTER USER 'app'@'%' IDENTIFIED BY 'S3cret'"}, want: []string{"mysql", "-e", "ALTER USER 'app'@'%' IDENTIFIED BY '***'"}},
		"IDENTIFIED WITH BY": {argv: []string{"mysql", "-e", `CREATE USER app IDENTIFIED WITH mysql_native_password BY "S3cret"`}, want: []string{"mysql", "-e", `CREATE USER app IDENTIFIED WITH mysql_native_password BY "***"`}},
		"SET PASSWORD FOR":   {argv: []string{"mysql", "-e", "SET PASSWORD FOR 'app'@'%' = 'S3cret'"}, want: []string{"mysql", "-e", "SET PASSWORD FOR 'app'@'%' = '***'"}},
		"SET PASSWORD func":  {argv: []string{"mysql", "-e", "SET PASSWORD = PASSWORD('S3cret')"}, want: []string{"mysql", "-e", "SET PASSWORD = PASSWORD('***')"}},
		"in a double-quoted line": {
			argv: []string{"psql", "-c", "ALTER ROLE app PASSWORD 'S3cret'"}, want: []string{"psql", "-c", "ALTER ROLE app PASSWORD '***'"},
			line: `psql -c "ALTER ROLE app PASSWORD 'S3cret'" db`, lineWant: `psql -c "ALTER ROLE app PASSWORD '***'" db`},
		"escaped double quotes": {
			argv: []string{"mysql", "-e", `SET PASSWORD = "S3cret"`}, want: []string{"mysql", "-e", `SET PASSWORD = "***"`},
			line: `mysql -e "SET PASSWORD = \"S3cret\""`, lineWant: `mysql -e "SET PASSWORD = \"***\""`},
		// Not a secret: kept.
		"a shell reference": {
			argv: []string{"psql", "-c", "ALTER ROLE app PASSWORD '$PW'"}, want: []string{"psql", "-c", "ALTER ROLE app PASSWORD '$PW'"},
			line: `psql -c "ALTER ROLE app PASSWORD '$PW'"`, lineWant: `psql -c "ALTER ROLE app PASSWORD '$PW'"`},
		"grep password file": {argv: []string{"grep", "-i", "password", "/etc/app.conf"}, want: []string{"grep", "-i", "password", "/etc/app.conf"}},
		"password column":    {argv: []string{"psql", "-c", "SELECT user, password FROM t WHERE role = 'admin'"}, want: []string{"psql", "-c", "SELECT user, password FROM t WHERE role = 'admin'"}},
		"PASSWORD NULL":      {argv: []string{"psql", "-c", "ALTER ROLE app PASSWORD NULL"}, want: []string{"psql", "-c", "ALTER ROLE app PASSWORD NULL"}},
		"VALID UNTIL":        {argv: []string{"psql", "-c", "ALTER ROLE app VALID UNTIL 'infinity'"}, want: []string{"psql", "-c", "ALTER ROLE app VALID UNTIL 'infinity'"}},
	})
}

// TestSpacedAndMoreAssignments: password = X with blanks around the =, and
// the assignments of a token by another name (GITHUB_PAT=, DB_PW=).
func TestSpacedAndMoreAssignments(t *testing.T) {
	checkShapes(t, map[string]shape{
		"password = X":      {argv: []string{"tool", "--set", "password", "=", "S3cret"}, want: []string{"tool", "--set", "password", "=", "***"}},
		"db_password =X":    {line: "tool db_password =S3cret -v", lineWant: "tool db_password =*** -v", argv: []string{"tool", "db_password", "=S3cret"}, want: []string{"tool", "db_password", "=***"}},
		"in a quoted word":  {argv: []string{"sh", "-c", "echo 'password = S3cret' >> /etc/app.conf"}, want: []string{"sh", "-c", "echo 'password = ***' >> /etc/app.conf"}},
		"api_key = X":       {argv: []string{"tool", "api_key", "=", "S3cret"}, want: []string{"tool", "api_key", "=", "***"}},
		"GITHUB_PAT=":       {argv: []string{"env", "GITHUB_PAT=ghp_S3cret", "gh", "repo", "list"}, want: []string{"env", "GITHUB_PAT=***", "gh", "repo", "list"}},
		"AZURE_DEVOPS_PAT=": {argv: []string{"env", "AZURE_DEVOPS_PAT=S3cret", "az", "x"}, want: []string{"env", "AZURE_DEVOPS_PAT=***", "az", "x"}},
		"DB_PW=":            {argv: []string{"env", "DB_PW=S3cret", "job"}, want: []string{"env", "DB_PW=***", "job"}},
		// Not a secret: kept.
		"an empty assignment":   {line: "MYSQL_PWD= mysqldump db", lineWant: "MYSQL_PWD= mysqldump db", argv: []string{"env", "MYSQL_PWD=", "mysqldump", "db"}, want: []string{"env", "MYSQL_PWD=", "mysqldump", "db"}},
		"a test of a variable":  {line: `[ "$password" = x ] && [ $TOKEN = y ] && job`, lineWant: `[ "$password" = x ] && [ $TOKEN = y ] && job`, argv: []string{"true"}, want: []string{"true"}},
		"a pattern _PAT":        {argv: []string{"env", "FILE_PAT=*.log", "LOG_PAT=/var/log/x", "job"}, want: []string{"env", "FILE_PAT=*.log", "LOG_PAT=/var/log/x", "job"}},
		"PATH":                  {argv: []string{"env", "PATH=/bin", "PAT_DIR=/x", "job"}, want: []string{"env", "PATH=/bin", "PAT_DIR=/x", "job"}},
		"a format":              {argv: []string{"sh", "-c", `printf 'token = %s\n' "$T" > /etc/x.conf`}, want: []string{"sh", "-c", `printf 'token = %s\n' "$T" > /etc/x.conf`}},
		"key = of another name": {argv: []string{"tool", "max_tokens", "=", "5"}, want: []string{"tool", "max_tokens", "=", "5"}},
	})
}

// TestMoreFlags: flags whose value is a secret though their name ends in
// none of password, secret, token...: aws s3's --sse-c-key, s3cmd's
// --secret_key, rclone's and pgbackrest's --*-pass, wp-cli's --dbpass, and
// single-dash -password (influx), keytool's -storepass and -keypass.
func TestMoreFlags(t *testing.T) {
	checkShapes(t, map[string]shape{
		"aws --sse-c-key":        {argv: []string{"aws", "s3", "cp", "f", "s3://b/f", "--sse-c", "AES256", "--sse-c-key", "S3cret"}, want: []string{"aws", "s3", "cp", "f", "s3://b/f", "--sse-c", "AES256", "--sse-c-key", "***"}},
		"aws --sse-c-key=":       {argv: []string{"aws", "s3", "cp", "f", "s3://b/f", "--sse-c-key=S3cret", "--sse-c-copy-source-key", "S3cret"}, want: []string{"aws", "s3", "cp", "f", "s3://b/f", "--sse-c-key=***", "--sse-c-copy-source-key", "***"}},
		"s3cmd --secret_key":     {argv: []string{"s3cmd", "--access_key=AK", "--secret_key=S3cret", "--secret-key", "S3cret", "ls"}, want: []string{"s3cmd", "--access_key=***", "--secret_key=***", "--secret-key", "***", "ls"}},
		"rclone --*-pass":        {argv: []string{"rclone", "copy", "--sftp-pass", "S3cret", "--ftp-pass=S3cret", "a", "b"}, want: []string{"rclone", "copy", "--sftp-pass", "***", "--ftp-pass=***", "a", "b"}},
		"pgbackrest cipher-pass": {argv: []string{"pgbackrest", "--repo1-cipher-pass=S3cret", "backup"}, want: []string{"pgbackrest", "--repo1-cipher-pass=***", "backup"}},
		"wp --dbpass":            {argv: []string{"wp", "config", "create", "--dbname=w", "--dbuser=w", "--dbpass=S3cret"}, want: []string{"wp", "config", "create", "--dbname=w", "--dbuser=w", "--dbpass=***"}},
		"influx -password":       {argv: []string{"influx", "-username", "a", "-password", "S3cret", "-execute", "x"}, want: []string{"influx", "-username", "a", "-password", "***", "-execute", "x"}},
		"keytool -storepass":     {argv: []string{"keytool", "-list", "-keystore", "k.jks", "-storepass", "S3cret", "-keypass", "S3cret"}, want: []string{"keytool", "-list", "-keystore", "k.jks", "-storepass", "***", "-keypass", "***"}},
		// Not a secret: kept.
		"aws key from a file":    {argv: []string{"aws", "s3", "cp", "f", "s3://b/f", "--sse-c-key", "fileb://k.bin"}, want: []string{"aws", "s3", "cp", "f", "s3://b/f", "--sse-c-key", "fileb://k.bin"}},
		"--secret-key-file":      {argv: []string{"tool", "--secret-key-file", "/k", "--ssh-key", "/k2"}, want: []string{"tool", "--secret-key-file", "/k", "--ssh-key", "/k2"}},
		"--two-pass":             {argv: []string{"encode", "--two-pass", "in.mp4", "--bypass", "x"}, want: []string{"encode", "--two-pass", "in.mp4", "--bypass", "x"}},
		"openssl -password":      {argv: []string{"openssl", "pkcs12", "-password", "env:PW"}, want: []string{"openssl", "pkcs12", "-password", "env:PW"}},
		"keytool -storepass:env": {argv: []string{"keytool", "-list", "-storepass:env", "PW"}, want: []string{"keytool", "-list", "-storepass:env", "PW"}},
	})
}

// TestDirectoryAndDatabaseTools: the password options of the OpenLDAP
// tools (-w X, ldappasswd's -s and -a), of Oracle's (sqlplus USER/PW@DB,
// expdp userid=USER/PW), of az login (-p X) and htpasswd's -b password.
func TestDirectoryAndDatabaseTools(t *testing.T) {
	checkShapes(t, map[string]shape{
		"ldapsearch -w":      {argv: []string{"ldapsearch", "-x", "-D", "cn=admin,dc=x", "-w", "S3cret", "-b", "dc=x"}, want: []string{"ldapsearch", "-x", "-D", "cn=admin,dc=x", "-w", "***", "-b", "dc=x"}},
		"ldapmodify -wX":     {argv: []string{"ldapmodify", "-D", "cn=a", "-wS3cret", "-f", "x.ldif"}, want: []string{"ldapmodify", "-D", "cn=a", "-w***", "-f", "x.ldif"}},
		"ldappasswd -s -a":   {argv: []string{"ldappasswd", "-D", "cn=a", "-w", "S3cret", "-a", "S3cret", "-s", "S3cret", "uid=u"}, want: []string{"ldappasswd", "-D", "cn=a", "-w", "***", "-a", "***", "-s", "***", "uid=u"}},
		"sqlplus user/pw@db": {argv: []string{"sqlplus", "-s", "scott/S3cret@//db:1521/orcl", "@x.sql"}, want: []string{"sqlplus", "-s", "scott/***@//db:1521/orcl", "@x.sql"}},
		"sqlplus user/pw":    {argv: []string{"sqlplus", "scott/S3cret", "@x.sql"}, want: []string{"sqlplus", "scott/***", "@x.sql"}},
		"expdp userid=":      {argv: []string{"expdp", "userid=system/S3cret@orcl", "directory=d", "dumpfile=x.dmp"}, want: []string{"expdp", "userid=system/***@orcl", "directory=d", "dumpfile=x.dmp"}},
		"rman target":        {argv: []string{"rman", "target", "sys/S3cret@orcl", "cmdfile=x.rman"}, want: []string{"rman", "target", "sys/***@orcl", "cmdfile=x.rman"}},
		"az login -p":        {argv: []string{"az", "login", "--service-principal", "-u", "app", "-p", "S3cret", "--tenant", "t"}, want: []string{"az", "login", "--service-principal", "-u", "app", "-p", "***", "--tenant", "t"}},
		"htpasswd -b":        {argv: []string{"htpasswd", "-bB", "/etc/h", "user", "S3cret"}, want: []string{"htpasswd", "-bB", "/etc/h", "user", "***"}},
		"htpasswd -nb":       {argv: []string{"htpasswd", "-nbB", "user", "S3cret"}, want: []string{"htpasswd", "-nbB", "user", "***"}},
		// Not a secret: kept.
		"sqlplus / as sysdba": {argv: []string{"sqlplus", "-s", "/", "as", "sysdba", "@/opt/x.sql"}, want: []string{"sqlplus", "-s", "/", "as", "sysdba", "@/opt/x.sql"}},
		"sqlplus /nolog":      {argv: []string{"sqlplus", "/nolog", "@x/y.sql"}, want: []string{"sqlplus", "/nolog", "@x/y.sql"}},
		"sqlplus from a var":  {argv: []string{"sqlplus", "scott/$PW@orcl"}, want: []string{"sqlplus", "scott/$PW@orcl"}, line: `sqlplus "scott/$PW@orcl"`, lineWant: `sqlplus "scott/$PW@orcl"`},
		"ldapsearch -W":       {argv: []string{"ldapsearch", "-W", "-y", "/k", "-b", "dc=x"}, want: []string{"ldapsearch", "-W", "-y", "/k", "-b", "dc=x"}},
		"htpasswd prompts":    {argv: []string{"htpasswd", "-B", "/etc/h", "user"}, want: []string{"htpasswd", "-B", "/etc/h", "user"}},
		"-w of another":       {argv: []string{"curl", "-w", "%{http_code}", "h"}, want: []string{"curl", "-w", "%{http_code}", "h"}},
		"a path a/b":          {argv: []string{"cp", "scott/tiger@x", "/b"}, want: []string{"cp", "scott/tiger@x", "/b"}},
		"az -p elsewhere":     {argv: []string{"az", "vm", "create", "-p", "x"}, want: []string{"az", "vm", "create", "-p", "x"}},
	})
}
