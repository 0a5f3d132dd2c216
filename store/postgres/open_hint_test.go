package postgres_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/catchup/catchup/store/internal/storetest"
	"github.com/catchup/catchup/store/postgres"
)

// TestOpenErrorsNameTheFix: a ledger that cannot be opened for the causes
// an operator meets first (no server at --db's address, a database or a
// role that does not exist) says so with the fix, as the SQLite ledger's
// errors do; before, pgx's words alone ("dial tcp ...: connection
// refused", "FATAL: database ... does not exist (SQLSTATE 3D000)").
func TestOpenErrorsNameTheFix(t *testing.T) {
	with := func(t *testing.T, edit func(u *url.URL)) string {
		u, err := url.Parse(storetest.PostgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		edit(u)
		return u.String()
	}
	for name, tc := range map[string]struct {
		dsn  func(t *testing.T) string
		want []string
	}{
		"no server at the address": {
			dsn:  func(*testing.T) string { return "postgres://postgres@127.0.0.1:1/app?sslmode=disable" },
			want: []string{"ledger unreachable", "fix: start PostgreSQL at 127.0.0.1:1, or point --db (or CATCHUP_DB) at the server that holds the ledger"},
		},
		"no such database": {
			dsn: func(t *testing.T) string {
				return with(t, func(u *url.URL) { u.Path = "/h_catchup_no_such_db" })
			},
			want: []string{`database "h_catchup_no_such_db" does not exist`, "fix: create it (createdb h_catchup_no_such_db), or name an existing database in --db (or CATCHUP_DB)"},
		},
		"no such role": {
			dsn: func(t *testing.T) string {
				return with(t, func(u *url.URL) { u.User = url.User("h_catchup_no_such_role") })
			},
			want: []string{`role "h_catchup_no_such_role" does not exist`, "fix: create the role (CREATE ROLE h_catchup_no_such_role LOGIN), or name an existing one in --db (or CATCHUP_DB)"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := postgres.Open(t.Context(), tc.dsn(t))
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line:\n%v", err)
			}
		})
	}
}
