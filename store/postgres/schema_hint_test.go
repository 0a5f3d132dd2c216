package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/catchup/catchup/store/postgres"
	"github.com/jackc/pgx/v5"
)

// TestFirstUseNamesTheSchemaFix: the first command on a new shared ledger
// creates its tables; when the DSN's schema cannot take them (it does not
// exist: a typo in search_path, or CREATE SCHEMA forgotten; or the role has
// no CREATE on it), the error names the schema and the statement that fixes
// it, not only the server's "no schema has been selected to create in"
// (which named nothing) or "permission denied for schema S".
func TestFirstUseNamesTheSchemaFix(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	admin := pgAdmin(t, dsn)
	ctx := context.Background()
	var b [4]byte
	rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	missing := "catchup_test_missing_" + suffix
	denied := "catchup_test_denied_" + suffix
	role := "catchup_test_role_" + suffix
	for _, q := range []string{
		`CREATE SCHEMA ` + denied,
		`CREATE ROLE ` + role + ` LOGIN`,
		`GRANT USAGE ON SCHEMA ` + denied + ` TO ` + role,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		admin.Exec(context.Background(), `DROP SCHEMA `+denied+` CASCADE`)
		admin.Exec(context.Background(), `DROP OWNED BY `+role)
		admin.Exec(context.Background(), `DROP ROLE `+role)
	})
	for name, tc := range map[string]struct {
		dsn  string
		want []string
	}{
		"missing schema": {
			dsn:  dsnWith(t, dsn, "", missing),
			want: []string{"schema " + missing + " does not exist", "CREATE SCHEMA " + missing},
		},
		"no CREATE on the schema": {
			dsn:  dsnWith(t, dsn, role, denied),
			want: []string{"GRANT CREATE ON SCHEMA " + denied + " TO " + role},
		},
	} {
		t.Run(name, func(t *testing.T) {
			l, err := postgres.Open(ctx, tc.dsn)
			if err == nil {
				l.Close()
				t.Fatal("Open created a ledger")
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

// dsnWith is dsn as role (when given), with search_path set to schema.
func dsnWith(t *testing.T, dsn, role, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if role != "" {
		u.User = url.User(role)
	}
	q := u.Query()
	q.Set("options", "-csearch_path="+pgx.Identifier{schema}.Sanitize())
	u.RawQuery = q.Encode()
	return u.String()
}
