package catchup

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/catchup/catchup/store"
)

// olderLineRegistrant is lineRegistrant as the catchup before names were
// escaped read a registration: what an older reader of a shared ledger
// makes of one this catchup writes.
func olderLineRegistrant(source string) (uid, name string, ok bool) {
	src, found := strings.CutPrefix(source, "crontab:")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(src, ":")
	if i < 0 {
		return "", "", false
	}
	_, rest, found := strings.Cut(src[i+1:], " uid=")
	if !found {
		return "", "", false
	}
	uid, rest, _ = strings.Cut(rest, " ")
	if _, err := strconv.Atoi(uid); err != nil {
		return "", "", false
	}
	name, _ = strings.CutPrefix(rest, "user=")
	return uid, name, true
}

// TestLineRegistrationNames: a user's name is recorded whatever it holds
// (a space, a colon, a %, an =, a control character: names from LDAP or
// sssd), one with a space, a colon or a control character escaped so that the file part still ends at the source's last
// colon and this catchup reads the name back as it was. An older reader
// reads the same uid and, for an escaped name, none (it then goes by the
// uid alone, as for a registration that recorded none), never a wrong
// name. Before, such a name was not recorded at all.
func TestLineRegistrationNames(t *testing.T) {
	for name, tc := range map[string]struct {
		user    string
		escaped bool
	}{
		"plain":                 {user: "alice"},
		"a machine account":     {user: "host$"},
		"dotted, with a dash":   {user: "a.b-c_d"},
		"a space":               {user: "alice smith", escaped: true},
		"a colon":               {user: "ad:alice", escaped: true},
		"a percent":             {user: "a%20b"},
		"a percent and a space": {user: "a%20b c", escaped: true},
		"uid= text":             {user: "x uid=0 user=root", escaped: true},
		"a domain, backslashed": {user: `EXAMPLE\alice`},
		"a tab":                 {user: "a\tb", escaped: true},
		"an at sign":            {user: "alice@example.com"},
	} {
		t.Run(name, func(t *testing.T) {
			sr := &shellReplay{as: &user.User{Uid: "1234", Username: tc.user}, user: tc.user}
			src := lineRegistration("/etc/cron.d/x:y", 7, Machine{}, sr)
			uid, got, ok := lineRegistrant(src)
			if uid != "1234" || got != tc.user || !ok {
				t.Errorf("lineRegistrant(%q) = %q, %q, %v; want 1234, %q, true", src, uid, got, ok, tc.user)
			}
			if p := lineSource(src); p != "/etc/cron.d/x:y" {
				t.Errorf("lineSource(%q) = %q; want the file", src, p)
			}
			ouid, oname, ook := olderLineRegistrant(src)
			want := tc.user
			if tc.escaped {
				want = ""
			}
			if ouid != "1234" || oname != want || !ook {
				t.Errorf("an older reader of %q: %q, %q, %v; want 1234, %q, true", src, ouid, oname, ook, want)
			}
			if strings.ContainsAny(src[len("crontab:/etc/cron.d/x:y:"):], ":\t\n") {
				t.Errorf("%q: the suffix holds a colon or a control character", src)
			}
		})
	}
}

// TestZoneReaderOfAGoneLineIsItsRecordedUser: root's readers read the zone
// file of a crontab line's task whose line they cannot find (its file gone
// or refused) with the rights of the user its registration recorded, as
// they read a `catchup run --cron` task's with its registrant's: before,
// always as nobody, though the registration said whose line it was. A
// recorded name that its uid no longer has (a uid reused after userdel) is
// read as nobody, and so is a registration that records no user.
func TestZoneReaderOfAGoneLineIsItsRecordedUser(t *testing.T) {
	nobody, err := user.LookupId("65534")
	if err != nil {
		t.Skip("no user of uid 65534")
	}
	for name, tc := range map[string]struct {
		suffix string
		uid    uint32
		who    string // "": root's own rights (no reader)
	}{
		"a user by name":          {suffix: " uid=65534 user=" + nobody.Username, uid: 65534, who: nobody.Username},
		"a uid without a name":    {suffix: " uid=64999", uid: 64999, who: "uid 64999"},
		"an escaped name, reused": {suffix: " user=ad%3Aalice uid=65534", uid: 65534, who: "nobody ("},
		"a name the uid lost":     {suffix: " uid=65534 user=no-such-user-here", uid: 65534, who: "nobody ("},
		"root's":                  {suffix: " uid=0 user=root"},
		"an older catchup's":      {suffix: "", uid: 65534, who: "nobody ("},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCrontabs(Machine{UID: 0})
			src := "crontab:" + t.TempDir() + "/gone:3" + tc.suffix
			r := c.zoneReaderOf(store.Task{Name: "tz", Source: src, Schedule: "0 * * * *", TZ: "/usr/share/zoneinfo/UTC"})
			if tc.who == "" {
				if r != nil {
					t.Fatalf("zoneReaderOf(%q) reads as %s; want root's own rights", src, r.who)
				}
				return
			}
			if r == nil || r.cred.Uid != tc.uid || !strings.HasPrefix(r.who, tc.who) ||
				(!strings.HasSuffix(tc.who, "(") && r.who != tc.who) {
				t.Fatalf("zoneReaderOf(%q) = %+v; want uid %d, %q", src, r, tc.uid, tc.who)
			}
		})
	}
}

// TestTakeoverGoesByTheRecordedLineUser: a root scan lets another user's
// line take a task over from a line of that same user's, as its
// registration recorded it, also when the older line cannot be read again
// (found on stdin, its crontab refused): before, only the older line's
// file told whose it was, and such a task was refused to its own user.
// One recorded as another user's is refused naming that user, unless its
// line is gone (the task is free).
func TestTakeoverGoesByTheRecordedLineUser(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("0 * * * * catchup run --task t -- true\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o666); err != nil { // writable by others: refused
		t.Fatal(err)
	}
	sr := &shellReplay{as: &user.User{Uid: "4242", Username: "alice"}, user: "alice"}
	for name, tc := range map[string]struct {
		source, refused string
	}{
		"stdin, the same user":         {source: "crontab::3 uid=4242 user=alice"},
		"stdin, the same uid, no name": {source: "crontab::3 uid=4242"},
		"stdin, another user":          {source: "crontab::3 uid=4343 user=bob", refused: "by bob (uid 4343)'s line"},
		"stdin, an escaped name":       {source: "crontab::3 user=ad%3Abob uid=4343", refused: "by ad:bob (uid 4343)'s line"},
		"stdin, the uid renamed":       {source: "crontab::3 uid=4242 user=bob", refused: "by bob (uid 4242)'s line"},
		"refused, the same user":       {source: "crontab:" + open + ":1 uid=4242 user=alice"},
		"refused, another user":        {source: "crontab:" + open + ":1 uid=4343 user=bob", refused: "by the line of " + open},
		"gone, another user":           {source: "crontab:" + filepath.Join(dir, "gone") + ":1 uid=4343 user=bob"},
		"an older catchup's, stdin":    {source: "crontab::3", refused: `by "crontab::3"`},
	} {
		t.Run(name, func(t *testing.T) {
			err := sr.checkTakeover(Machine{UID: 0}, store.Task{Name: "t", Source: tc.source}, filepath.Join(dir, "mine"))
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("checkTakeover: %v; want the task taken over", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Errorf("checkTakeover: %v; want it refused %q", err, tc.refused)
			}
		})
	}
}
