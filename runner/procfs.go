package runner

import (
	"bytes"
	"os"
	"strconv"
)

// liveGroupMember scans /proc for a process whose process group is pgid and
// that is not a zombie. ok is false when /proc cannot be read (not Linux, or
// not mounted); callers then have no better answer than kill(-pgid, 0).
func liveGroupMember(pgid int) (alive, ok bool) {
	n, ok := liveGroupMembers(pgid, 1)
	return n > 0, ok
}

// liveGroupMembers counts, up to limit (0: no limit), the processes of
// group pgid that are not zombies; ok as for liveGroupMember.
func liveGroupMembers(pgid, limit int) (n int, ok bool) {
	return liveGroupMembersBut(pgid, limit, 0)
}

// liveGroupMembersBut is liveGroupMembers not counting process but.
func liveGroupMembersBut(pgid, limit, but int) (n int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err != nil || pid == but {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		state, pg, ok := parseStat(data)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			if n++; n == limit {
				break
			}
		}
	}
	return n, true
}

// parseStat extracts the state and process group from the content of
// /proc/PID/stat: "pid (comm) state ppid pgrp ...". comm may contain
// spaces and parentheses, so parsing starts after the last ')'.
func parseStat(data []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pg, true
}

// processExited reports whether pid has exited: a zombie, or gone (reaped).
func processExited(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	state, _, ok := parseStat(data)
	return ok && (state == 'Z' || state == 'X')
}
