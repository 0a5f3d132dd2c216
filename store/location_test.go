package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// noPGEnv clears the variables that give a PostgreSQL URL its defaults, so
// that the results do not depend on the caller's environment.
func noPGEnv(t *testing.T) {
	for _, v := range []string{"PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGOPTIONS", "PGSERVICE"} {
		t.Setenv(v, "")
	}
}

func TestParseLocation(t *testing.T) {
	noPGEnv(t)
	tests := map[string]struct {
		in      string
		want    store.Location
		wantErr string // a part of the error; "" for none
	}{
		"absolute path":         {in: "/var/lib/catchup/catchup.db", want: store.Location{Kind: store.SQLite, Path: "/var/lib/catchup/catchup.db"}},
		"relative path":         {in: "ledger.db", want: store.Location{Kind: store.SQLite, Path: "ledger.db"}},
		"path with odd bytes":   {in: "/tmp/a?b#c%20.db", want: store.Location{Kind: store.SQLite, Path: "/tmp/a?b#c%20.db"}},
		"colon path as ./":      {in: "./ledger:2026.db", want: store.Location{Kind: store.SQLite, Path: "./ledger:2026.db"}},
		"scheme-like path":      {in: "ledger:2026.db", wantErr: `unknown ledger scheme "ledger"`},
		"pg: without //":        {in: "pg:db/ledger", wantErr: `unknown ledger scheme "pg"`},
		"postgres: without //":  {in: "postgres:ledger", wantErr: "invalid PostgreSQL DSN"},
		"postgress typo":        {in: "postgress://u:secret@db/ledger", wantErr: `unknown ledger scheme "postgress"`},
		"postgres// typo":       {in: "postgres//u:secret@db/ledger", wantErr: "invalid PostgreSQL DSN"},
		"PostgreSQL// typo":     {in: "PostgreSQL//u:secret@db/ledger", wantErr: "invalid PostgreSQL DSN"},
		"directory postgres":    {in: "postgres/ledger.db", want: store.Location{Kind: store.SQLite, Path: "postgres/ledger.db"}},
		"one slash too many":    {in: "postgres:///u:secret@db/ledger", wantErr: "a database name with an @"},
		"semicolon for colon":   {in: "postgres;//u:secret@db/ledger", wantErr: "USER:PASSWORD@HOST"},
		"one slash":             {in: "postgres/u:secret@db/ledger", wantErr: "USER:PASSWORD@HOST"},
		"pg//":                  {in: "pg//u:secret@db/ledger", wantErr: "USER:PASSWORD@HOST"},
		"a file of that name":   {in: "file:u:x@y.db", want: store.Location{Kind: store.SQLite, Path: "u:x@y.db"}},
		"an @ in a file name":   {in: "backups/ledger@2026.db", want: store.Location{Kind: store.SQLite, Path: "backups/ledger@2026.db"}},
		"URL inside a path":     {in: "./postgres://odd/file", want: store.Location{Kind: store.SQLite, Path: "./postgres://odd/file"}},
		"key=value string":      {in: "host=db dbname=ledger password=secret", wantErr: "libpq keyword=value string; write it as a URL: postgres://"},
		"key = value, blanks":   {in: "host = db password = secret", wantErr: "keyword=value"},
		"one keyword":           {in: "password=secret", wantErr: "keyword=value"},
		"unknown keyword":       {in: "hots=db", wantErr: "keyword=value"},
		"key=value as ./":       {in: "./host=db.db", want: store.Location{Kind: store.SQLite, Path: "./host=db.db"}},
		"= in a directory":      {in: "/srv/a=b/ledger.db", want: store.Location{Kind: store.SQLite, Path: "/srv/a=b/ledger.db"}},
		"= later in a name":     {in: "ledger-a=b.db", want: store.Location{Kind: store.SQLite, Path: "ledger-a=b.db"}},
		"an @ in the password":  {in: "postgres://u:secret@secret@db/ledger", wantErr: "percent-encode it as %40"},
		"@ after ? in password": {in: "postgres://u:sec?ret@secret@db/ledger", wantErr: "percent-encode it as %40"},
		"@ after # in password": {in: "postgres://u:sec#ret@secret@db/ledger", wantErr: "percent-encode it as %40"},
		"bad escape named":      {in: "postgres://u:secret@db/led%zzger", wantErr: `invalid percent-encoded token: "led%zzger"`},
		"bad escape, password=": {in: "postgres://u@db/ledger?password=sec%zzret", wantErr: "invalid PostgreSQL DSN"},
		"bad escape, password":  {in: "postgres://u:sec%zzret@db/ledger", wantErr: "invalid PostgreSQL DSN"},
		"bad timeout named":     {in: "postgres://u:secret@db/ledger?connect_timeout=abc", wantErr: `invalid connect_timeout`},
		"file:/path":            {in: "file:/var/lib/catchup.db", want: store.Location{Kind: store.SQLite, Path: "/var/lib/catchup.db"}},
		"file:///path":          {in: "file:///var/lib/catchup.db", want: store.Location{Kind: store.SQLite, Path: "/var/lib/catchup.db"}},
		"file://localhost":      {in: "file://localhost/var/lib/catchup.db", want: store.Location{Kind: store.SQLite, Path: "/var/lib/catchup.db"}},
		"FILE: relative":        {in: "FILE:state/ledger%20one.db", want: store.Location{Kind: store.SQLite, Path: "state/ledger one.db"}},
		"file: escaped":         {in: "file:///tmp/a%3Fb.db", want: store.Location{Kind: store.SQLite, Path: "/tmp/a?b.db"}},
		"file: other host":      {in: "file://nas/var/lib/catchup.db", wantErr: "not on nas"},
		"file: with a query":    {in: "file:/tmp/x.db?mode=ro", wantErr: "takes no ?query"},
		"file: with fragment":   {in: "file:/tmp/x.db#frag", wantErr: "takes no ?query"},
		"file: names nothing":   {in: "file://", wantErr: "invalid file: ledger location"},
		"postgres":              {in: "postgres://u@db:5432/ledger", want: store.Location{Kind: store.Postgres, DSN: "postgres://u@db:5432/ledger"}},
		"postgresql":            {in: "postgresql://u@db/ledger?sslmode=require", want: store.Location{Kind: store.Postgres, DSN: "postgresql://u@db/ledger?sslmode=require"}},
		"POSTGRES":              {in: "POSTGRES://db/ledger", want: store.Location{Kind: store.Postgres, DSN: "postgres://db/ledger"}},
		"URL after a blank":     {in: " postgres://u:secret@db/ledger", wantErr: "leading or trailing blanks"},
		"URL before a newline":  {in: "postgres://u:secret@db/ledger\n", wantErr: "leading or trailing blanks"},
		"path after a tab":      {in: "\t/var/lib/catchup.db", wantErr: "leading or trailing blanks"},
		"bad port":              {in: "postgres://u:secret@db:notaport/ledger", wantErr: "invalid PostgreSQL DSN"},
		"bad host":              {in: "postgres://u:secret@[::1/ledger", wantErr: "invalid PostgreSQL DSN"},
		"bad sslmode":           {in: "postgres://u:secret@db/ledger?sslmode=bogus", wantErr: "invalid PostgreSQL DSN: sslmode is invalid"},
		"unknown scheme":        {in: "mysql://u:secret@db/ledger", wantErr: `unknown ledger scheme "mysql"`},
		"sqlite scheme":         {in: "sqlite:///var/lib/catchup.db", wantErr: `unknown ledger scheme "sqlite"`},
		"scheme in upper case":  {in: "HTTPS://db/ledger", wantErr: `unknown ledger scheme "https"`},
		"empty":                 {in: "", wantErr: "empty ledger location"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := store.ParseLocation(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseLocation(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "sec%zz") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseLocation(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestLocationRedacted(t *testing.T) {
	noPGEnv(t)
	tests := map[string]struct{ in, want string }{
		"sqlite":             {"/var/lib/catchup.db", "/var/lib/catchup.db"},
		"postgres":           {"postgres://u:secret@db.example:6432/ledger?sslmode=require", "db.example:6432/ledger"},
		"default port":       {"postgresql://u@db/ledger", "db:5432/ledger"},
		"password parameter": {"postgres://u@db/ledger?password=secret", "db:5432/ledger"},
		"search_path":        {"postgres://u@db/ledger?search_path=fleet", "db:5432/ledger?search_path=fleet"},
		"options -c":         {"postgres://u@db/ledger?options=-csearch_path%3Dfleet", "db:5432/ledger?search_path=fleet"},
		"options -c apart":   {"postgres://u@db/ledger?options=-c%20search_path%3Dfleet", "db:5432/ledger?search_path=fleet"},
		"options --":         {"postgres://u@db/ledger?options=--search_path%3Dfleet%20-cwork_mem%3D4MB", "db:5432/ledger?search_path=fleet"},
		"invalid":            {"postgres://u:secret@db:notaport/ledger", "(invalid PostgreSQL DSN)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			loc := store.Location{Kind: store.SQLite, Path: tc.in}
			if store.IsPostgres(tc.in) {
				loc = store.Location{Kind: store.Postgres, DSN: tc.in}
			}
			if got := loc.Redacted(); got != tc.want {
				t.Errorf("Redacted(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if s := fmt.Sprint(loc); s != tc.want {
				t.Errorf("printed as %q, want %q", s, tc.want)
			}
		})
	}
}

// The Redacted name is the ledger's identity: server, database and schema,
// not the spelling of its URL.
func TestLocationIdentity(t *testing.T) {
	noPGEnv(t)
	name := func(dsn string) string {
		t.Helper()
		loc, err := store.ParseLocation(dsn)
		if err != nil {
			t.Fatal(err)
		}
		return loc.Redacted()
	}
	same := []string{
		"postgres://catchup:old@db:5432/ledger?sslmode=require&options=-csearch_path%3Dfleet",
		"postgres://catchup:rotated@db/ledger?options=-csearch_path%3Dfleet&sslmode=require",
		"postgresql://other@db:5432/ledger?options=-csearch_path%3Dfleet",
		"postgres://db/ledger?search_path=fleet",
	}
	for _, dsn := range same[1:] {
		if name(dsn) != name(same[0]) {
			t.Errorf("%q and %q are one ledger: %q vs %q", dsn, same[0], name(dsn), name(same[0]))
		}
	}
	for what, dsn := range map[string]string{
		"no schema":      "postgres://catchup@db:5432/ledger",
		"other schema":   "postgres://catchup@db:5432/ledger?options=-csearch_path%3Dother",
		"other database": "postgres://catchup@db:5432/other?options=-csearch_path%3Dfleet",
		"other server":   "postgres://catchup@db2:5432/ledger?options=-csearch_path%3Dfleet",
		"other port":     "postgres://catchup@db:5433/ledger?options=-csearch_path%3Dfleet",
	} {
		if name(dsn) == name(same[0]) {
			t.Errorf("%s: %q taken for the same ledger", what, dsn)
		}
	}
}

func TestIsPostgres(t *testing.T) {
	for loc, want := range map[string]bool{
		"postgres://db/ledger":                   true,
		"postgresql://u@db:5432/x":               true,
		"POSTGRES://db/ledger":                   true,
		"postgres://u:secret@db:notaport/ledger": true, // not valid, but meant as PostgreSQL
		"/var/lib/catchup/ledger.db":             false,
		"ledger.db":                              false,
		"postgres":                               false,
		"./postgres://odd/file":                  false,
		"host=db dbname=ledger":                  false,
		"file:/var/lib/catchup.db":               false,
		"sqlite:///var/lib/catchup.db":           false,
	} {
		if got := store.IsPostgres(loc); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", loc, got, want)
		}
	}
}

func TestSafeLocation(t *testing.T) {
	noPGEnv(t)
	for in, want := range map[string]string{
		"/var/lib/catchup.db":                         "/var/lib/catchup.db",
		"postgres://u:secret@db:6432/ledger":          "db:6432/ledger",
		"postgres://u:secret@db:notaport/ledger":      "(invalid PostgreSQL DSN)",
		"mysql://u:secret@db/ledger":                  "(invalid ledger location)",
		"file:/var/lib/catchup.db":                    "/var/lib/catchup.db",
		"postgres://u@db/l?options=-csearch_path%3Ds": "db:5432/l?search_path=s",
	} {
		if got := store.SafeLocation(in); got != want {
			t.Errorf("SafeLocation(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWithoutPassword: a job's CATCHUP_DB (and a notify command's) keeps no
// secret of the ledger URL: not the user info's password, nor a password=
// or sslpassword= parameter (the key file's passphrase).
func TestWithoutPassword(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"sqlite":      {"/var/lib/catchup.db", "/var/lib/catchup.db"},
		"user info":   {"postgres://u:secret@db/ledger", "postgres://u@db/ledger"},
		"password":    {"postgres://u@db/ledger?password=secret&sslmode=require", "postgres://u@db/ledger?sslmode=require"},
		"sslpassword": {"postgres://u@db/ledger?sslmode=verify-full&sslpassword=secret", "postgres://u@db/ledger?sslmode=verify-full"},
		"invalid":     {"postgres://u:secret@db:notaport/ledger", ""},
		"blank first": {" postgres://u:secret@db/ledger", ""},
		"typo scheme": {"postgress://u:secret@db/ledger", ""},
		// libpq (and pgx) end the user info at the first @ before any /:
		// a # or ? in the password is the password's, where net/url saw
		// a port, then a fragment or a query, and kept them whole.
		"# in the password":    {"postgres://u:1234#secret@db/ledger", "postgres://u@db/ledger"},
		"? in the password":    {"postgres://u:1234?secret@db/ledger?sslmode=disable", "postgres://u@db/ledger?sslmode=disable"},
		"# after a letter":     {"postgres://u:ab#secret@db/ledger", "postgres://u@db/ledger"},
		"# in password=":       {"postgres://u@db/ledger?password=ab#secret&sslmode=disable", "postgres://u@db/ledger?sslmode=disable"},
		"encoded key":          {"postgres://u@db/ledger?pass%77ord=secret", "postgres://u@db/ledger"},
		"no user left":         {"postgres://:secret@db/ledger", "postgres://db/ledger"},
		"kept as written":      {"postgres://u@db,db2:5433/ledger?options=-csearch_path%3Dfleet&sslmode=require", "postgres://u@db,db2:5433/ledger?options=-csearch_path%3Dfleet&sslmode=require"},
		"only password param":  {"postgres://u@[::1]:5432/ledger?password=secret", "postgres://u@[::1]:5432/ledger"},
		"[ in the database":    {"postgres://u@db/le[dger?password=secret", "postgres://u@db/le[dger"},
		"scheme in upper case": {"POSTGRES://u:secret@db/ledger", "postgres://u@db/ledger"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := store.WithoutPassword(tc.in); got != tc.want {
				t.Errorf("WithoutPassword(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
