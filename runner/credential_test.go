package runner

import (
	"bytes"
	"os"
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
