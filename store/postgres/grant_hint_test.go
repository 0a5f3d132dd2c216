package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// TestWriteNamesTheLedgerFix: a ledger already created that a write then
// finds unfit names the fix, not only the server's words. The fleet's role
// lacks a privilege on one of its tables or sequences (a DBA granted on the
// tables by name, or before a migration added one): "permission denied for
// table slots" said nothing of the GRANT that fixes it. The ledger's tables
// are gone (its schema dropped, or emptied, under a running daemon, whose
// fires then said at each fire `relation "tasks" does not exist` and that
// the next scan replays the slot): the write says the tables are gone and
// how to have them back.
func TestWriteNamesTheLedgerFix(t *testing.T) {
	dsn := pgLedger(t)
	admin := pgAdmin(t, dsn)
	ctx := context.Background()
	openPG(t, dsn).Close() // creates the tables
	var b [4]byte
	rand.Read(b[:])
	role := "catchup_test_grant_" + hex.EncodeToString(b[:])
	schema := schemaOf(t, dsn)
	for _, q := range []string{
		`CREATE ROLE ` + role + ` LOGIN`,
		`GRANT USAGE ON SCHEMA ` + schema + ` TO ` + role,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ` + schema + ` TO ` + role,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		admin.Exec(context.Background(), `DROP OWNED BY `+role)
		admin.Exec(context.Background(), `DROP ROLE `+role)
	})
	grant := "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + schema + " TO " + role +
		"; GRANT USAGE ON ALL SEQUENCES IN SCHEMA " + schema + " TO " + role
	for _, tc := range []struct {
		name  string
		setup []string
		as    string
		want  []string
	}{
		{name: "no INSERT on slots", setup: []string{`REVOKE INSERT ON slots FROM ` + role}, as: role,
			want: []string{"permission denied for table slots", "fix: ", grant}},
		{name: "no USAGE on the runs' sequence", setup: []string{`GRANT INSERT ON slots TO ` + role}, as: role,
			want: []string{"permission denied for sequence", "fix: ", grant}},
		{name: "tables dropped", setup: []string{`DROP SCHEMA ` + schema + ` CASCADE`, `CREATE SCHEMA ` + schema},
			want: []string{`"tasks" does not exist`, "fix: the ledger's tables are gone from schema " + schema,
				"restore the ledger from a backup", "restart catchup"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dsn
			if tc.as != "" {
				d = dsnWith(t, dsn, tc.as, schema)
			}
			l := openPG(t, d) // opened while the ledger was fine
			for _, q := range tc.setup {
				if _, err := admin.Exec(ctx, `SET search_path TO `+schema+`; `+q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			_, err := l.Claim(ctx, store.ClaimRequest{Run: store.Run{Task: "t", Slot: t0, Trigger: store.TriggerSchedule,
				StartedAt: t0, Host: "h"}, Register: &store.Task{Name: "t", Schedule: "* * * * *", TZ: "UTC",
				Argv: []string{"true"}, RegisteredAt: t0, UpdatedAt: t0}})
			if err == nil {
				t.Fatal("the claim was recorded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

// schemaOf is the schema the ledger dsn names.
func schemaOf(t *testing.T, dsn string) string {
	t.Helper()
	loc, err := store.ParseLocation(dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(loc.Redacted(), "?search_path=")
	if !ok {
		t.Fatalf("%s names no schema", loc.Redacted())
	}
	return s
}
