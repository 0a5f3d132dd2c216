package cmd

import (
	"os/user"
	"testing"
)

func TestLedgerIdentity(t *testing.T) {
	same := []string{
		"postgres://catchup:old@db:5432/ledger?sslmode=require&options=-csearch_path%3Dfleet",
		"postgres://catchup:rotated@db/ledger?options=-csearch_path%3Dfleet&sslmode=require",
		"postgresql://other@db:5432/ledger?options=-csearch_path%3Dfleet",
		// a # in the password, as the driver reads it: net/url saw the
		// host "catchup", port 1234, or no URL and keyed the text, password and all
		"postgres://catchup:1234#pw@db:5432/ledger?options=-csearch_path%3Dfleet",
		"postgres://catchup:ab#pw@db:5432/ledger?options=-csearch_path%3Dfleet",
	}
	for _, dsn := range same[1:] {
		if lockDirKey(dsn) != lockDirKey(same[0]) {
			t.Errorf("%q and %q are one ledger: %q vs %q", dsn, same[0], lockDirKey(dsn), lockDirKey(same[0]))
		}
	}
	for name, dsn := range map[string]string{
		"other schema":   "postgres://catchup@db:5432/ledger?options=-csearch_path%3Dother",
		"other database": "postgres://catchup@db:5432/other?options=-csearch_path%3Dfleet",
		"other server":   "postgres://catchup@db2:5432/ledger?options=-csearch_path%3Dfleet",
	} {
		if lockDirKey(dsn) == lockDirKey(same[0]) {
			t.Errorf("%s: %q taken for the same ledger", name, dsn)
		}
	}
}

// TestHomeDir: the current user's home is $HOME, else (a systemd service
// sets none) the passwd database's; another user's is the passwd
// database's.
func TestHomeDir(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Skip("no passwd entry for the current user")
	}
	tests := map[string]struct {
		home, user, want string
	}{
		"$HOME set":            {home: "/from/env", want: "/from/env"},
		"$HOME unset: passwd":  {home: "", want: me.HomeDir},
		"a user named: passwd": {home: "/from/env", user: me.Username, want: me.HomeDir},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("HOME", tc.home)
			got, err := homeDir(tc.user)
			if err != nil || got != tc.want {
				t.Errorf("homeDir(%q) = %q, %v; want %q", tc.user, got, err, tc.want)
			}
		})
	}
}
