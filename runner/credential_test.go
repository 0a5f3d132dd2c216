package runner

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRunAsAnotherUser: with a Credential the child runs as that user,
// with exactly the groups given (none of root's).
func TestRunAsAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	var out bytes.Buffer
	res := run(t, Config{Argv: sh(`echo "$(id -u) $(id -g) $(id -G)"`), Stdout: &out, Dir: "/",
		Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %v", res.ExitCode, res.StartErr)
	}
	if got, want := out.String(), "65534 65534 65534\n"; got != want {
		t.Errorf("id: %q, want %q", got, want)
	}
}

// TestRunAsAnotherUserInASessionOfItsOwn: a child run as another user
// starts a session of its own, without a controlling terminal. In the
// caller's session it could open /dev/tty, the terminal of the root who
// ran scan or backfill, and push keystrokes into that root shell's input
// (TIOCSTI) or read what root types next.
func TestRunAsAnotherUserInASessionOfItsOwn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	var out bytes.Buffer
	// Fields 6 and 7 of /proc/PID/stat (sh's name has no blank): its
	// session and its controlling terminal (0: none).
	res := run(t, Config{Argv: sh(`read -r line < /proc/$$/stat; set -- $line; echo "$$ $6 $7"`), Stdout: &out, Dir: "/",
		Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %v", res.ExitCode, res.StartErr)
	}
	f := strings.Fields(out.String())
	if len(f) != 3 {
		t.Fatalf("stat fields: %q", out.String())
	}
	if pid, sid, tty := f[0], f[1], f[2]; sid != pid || tty != "0" {
		t.Errorf("child %s runs in session %s with terminal %s, want a session of its own (%s) and no terminal (0)", pid, sid, tty, pid)
	}
	if res.Pid == 0 || strconv.Itoa(res.Pid) != f[0] {
		t.Errorf("Result.Pid %d, child's own pid %s", res.Pid, f[0])
	}
}

// TestRunAsAnotherUserInheritsNoDescriptor: a child run as another user
// gets no descriptor of this process but its standard streams and
// ExtraFiles. Descriptors this process inherited without close-on-exec (a
// root shell's `exec 9>file; flock 9; catchup scan`) would give that user
// root's open files (write them, read them, keep root's lock after the
// scan). A child of the same user keeps inheriting them: catchup run is a
// transparent prefix.
func TestRunAsAnotherUserInheritsNoDescriptor(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	inherited, err := os.OpenFile(t.TempDir()+"/root-only", os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer inherited.Close()
	extra, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	fd := int(inherited.Fd())
	// As if this process had inherited it: without close-on-exec.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	list := sh(`cd /proc/self/fd && for f in *; do [ "$f" -ge 3 ] 2>/dev/null && [ -e "$f" ] && printf '%s ' "$f"; done; echo`)
	var own bytes.Buffer
	run(t, Config{Argv: list, Stdout: &own, Dir: "/"})
	if !strings.Contains(" "+own.String(), " "+strconv.Itoa(fd)+" ") {
		t.Fatalf("a child of this user's does not get the inherited fd %d (has %q): the test cannot tell", fd, own.String())
	}
	var out bytes.Buffer
	res := run(t, Config{Argv: list, Stdout: &out, Dir: "/", ExtraFiles: []*os.File{extra},
		Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %v", res.ExitCode, res.StartErr)
	}
	if got := strings.TrimSpace(out.String()); got != "3" {
		t.Errorf("the child run as another user has descriptors %q from 3 up, want only its ExtraFiles' 3 (not the inherited %d)", got, fd)
	}
}

// TestRunAsAnotherUserGetsCronsUmask: a child run as another user starts
// with umask 022, the one cron's jobs get (a cron daemon started by init
// or systemd), never this process's: root's scan run from a shell with
// umask 077 made every file that user's replayed job created private,
// and one with umask 000 writable by everyone. The caller's own umask is
// left as it was, and so is that of a child run as the caller.
func TestRunAsAnotherUserGetsCronsUmask(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for name, tc := range map[string]struct {
		cred *syscall.Credential
		want string
	}{
		"another user": {cred: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}, want: "0022\n"},
		"the caller":   {want: "0077\n"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			res := run(t, Config{Argv: sh(`umask`), Stdout: &out, Dir: "/", Credential: tc.cred})
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %v", res.ExitCode, res.StartErr)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("umask %q, want %q", got, tc.want)
			}
		})
	}
	if now := syscall.Umask(0o077); now != 0o077 {
		t.Errorf("this process's umask is now %#o, want 077 as it was", now)
	}
}
