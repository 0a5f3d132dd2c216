package filetrust

import (
	"bufio"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// groupFile is the group database PrivateGroup reads members from.
var groupFile = "/etc/group"

// PrivateGroup reports whether fi's group is its owner's own (a user
// private group, as Debian gives every user, with umask 002): the owner's
// primary group, named after the owner, with no member but the owner in
// the group database. Group write then lets no one else in. A group it
// cannot read the members of (not in /etc/group) is not private.
func PrivateGroup(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	owner := UserName(int(st.Uid))
	if owner == "" {
		return false
	}
	f, err := os.Open(groupFile)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// name:password:gid:members
		fields := strings.Split(sc.Text(), ":")
		if len(fields) != 4 || fields[2] != strconv.Itoa(int(st.Gid)) {
			continue
		}
		if fields[0] != owner {
			return false
		}
		for _, m := range strings.Split(fields[3], ",") {
			if m != "" && m != owner {
				return false
			}
		}
		return primaryGroup(int(st.Uid)) == int(st.Gid)
	}
	return false
}

// primaryGroup is uid's primary gid, or -1.
func primaryGroup(uid int) int {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return -1
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return -1
	}
	return gid
}
