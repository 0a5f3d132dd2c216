package filetrust

import (
	"bufio"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// The databases PrivateGroup reads a group's members from.
var groupFile, passwdFile = "/etc/group", "/etc/passwd"

// PrivateGroup reports whether fi's group is its owner's own (a user
// private group, as Debian gives every user, with umask 002): the owner's
// primary group, named after the owner, with no member but the owner in
// the group database, and no other user's primary group in the passwd
// database. Group write then lets no one else in. A group it cannot read
// the members of (not in /etc/group) is not private.
func PrivateGroup(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	u, err := user.LookupId(strconv.Itoa(int(st.Uid)))
	if err != nil || u.Gid != strconv.Itoa(int(st.Gid)) {
		return false // no such user, or not its primary group
	}
	return onlyMember(u.Username, int(st.Uid), int(st.Gid))
}

// onlyMember reports whether owner (uid), whose primary group is gid, is
// the one user in it: every group database line of gid (several lines may
// share it) is named owner and lists no other member, and the passwd
// database gives gid as primary group to owner alone (members by primary
// group are listed nowhere in /etc/group).
func onlyMember(owner string, uid, gid int) bool {
	g := strconv.Itoa(gid)
	named := false
	ok := eachLine(groupFile, func(fields []string) bool {
		// name:password:gid:members
		if len(fields) != 4 || fields[2] != g {
			return true
		}
		if fields[0] != owner {
			return false
		}
		for _, m := range strings.Split(fields[3], ",") {
			if m != "" && m != owner {
				return false
			}
		}
		named = true
		return true
	})
	if !ok || !named {
		return false
	}
	return eachLine(passwdFile, func(fields []string) bool {
		// name:password:uid:gid:gecos:home:shell
		return len(fields) < 4 || fields[3] != g || fields[2] == strconv.Itoa(uid)
	})
}

// eachLine calls f with the colon-separated fields of each line of file
// while f returns true; false when f stopped it or the file is unreadable.
func eachLine(file string, f func(fields []string) bool) bool {
	fh, err := os.Open(file)
	if err != nil {
		return false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if !f(strings.Split(sc.Text(), ":")) {
			return false
		}
	}
	return sc.Err() == nil
}
