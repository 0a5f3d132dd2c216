package cmd

import (
	"strings"
	"testing"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/catchup/crontab"
)

// TestDaemonLineSecretsNotStored: a daemon line's command can carry a
// secret (a PostgreSQL URL's password, PGPASSWORD=, a ping token, the job's
// own: mysql -pX, a bearer token, a URL's password, api_key=). The
// daemon runs the line as written, but the ledger keeps its command
// redacted, marked so that no other scan replays the redacted text.
func TestDaemonLineSecretsNotStored(t *testing.T) {
	lines := "0 2 * * * psql postgres://bob:HUNTER-1@db/x -c 'select 1'\n" +
		"0 3 * * * PGPASSWORD=HUNTER-2 psql -h db -c 'select 1'\n" +
		"0 4 * * * catchup run --task p -- notify --ping https://hc.example/HUNTER-3\n" +
		"0 5 * * * /opt/plain.sh\n" +
		"0 6 * * * mysqldump -uroot -pHUNTER-4 db > /x.sql\n" +
		"0 7 * * * curl -H 'Authorization: Bearer HUNTER-5' https://api:HUNTER-6@h/x?api_key=HUNTER-7\n"
	jobs, errs := crontab.ParseJobs(strings.NewReader(lines), "c.cron")
	if len(errs) > 0 || len(jobs) != 6 {
		t.Fatalf("parse: %v, %d jobs", errs, len(jobs))
	}
	m := catchup.Machine{Zone: "UTC", DB: "/tmp/x.db"}
	for _, j := range jobs {
		task, err := daemonTask(m, j, "/etc/c.cron")
		if err != nil {
			t.Fatalf("line %d: %v", j.Line, err)
		}
		def := task.Def
		stored := def.Name + " " + strings.Join(def.Argv, " ") + " " + def.Source + " " + def.Dir + " " + def.NotifyCmd
		if strings.Contains(stored, "HUNTER") {
			t.Errorf("line %d is stored with a secret: %q", j.Line, stored)
		}
		if !strings.Contains(strings.Join(task.Req.Argv, " "), j.Run) {
			t.Errorf("line %d runs %q, want its command as written %q", j.Line, task.Req.Argv, j.Run)
		}
		if redacted := strings.Contains(j.Run, "HUNTER"); redacted != catchup.StoredRedacted(def) {
			t.Errorf("line %d: StoredRedacted = %v, want %v (source %q)", j.Line, !redacted, redacted, def.Source)
		}
	}
}
