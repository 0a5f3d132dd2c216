package catchup

import (
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// TestLockFaultReadOnlyNamesTheFileSystem: a lock file that cannot be
// opened because its file system is mounted read-only (a container's
// read-only root, a home bind-mounted ro) says so and how to fix it, not
// "remove or fix what is at its path", which sent the operator to a file
// that was not there, nor "the ledger is fine": the ledger beside it is on
// the same file system.
func TestLockFaultReadOnlyNamesTheFileSystem(t *testing.T) {
	tests := map[string]struct {
		errno    syscall.Errno
		want     string
		wantNot  string
		fineSaid bool // the run's notice says the ledger is fine
	}{
		"read-only": {errno: syscall.EROFS, want: "its file system is read-only", wantNot: "remove or fix", fineSaid: false},
		"directory": {errno: syscall.EISDIR, want: "remove or fix what is at", fineSaid: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cause := fmt.Errorf("%w: %w", ErrOpenLockFile, &fs.PathError{Op: "open", Path: "/st/t.lock", Err: tc.errno})
			fix := lockFault(cause)
			if !strings.Contains(fix, tc.want) || (tc.wantNot != "" && strings.Contains(fix, tc.wantNot)) {
				t.Errorf("lockFault = %q; want %q, not %q", fix, tc.want, tc.wantNot)
			}
			notice := openLockFileNotice("t", cause)
			if !strings.Contains(notice, tc.want) || strings.Contains(notice, "the ledger is fine") != tc.fineSaid {
				t.Errorf("notice = %q; want %q, the ledger said fine: %v", notice, tc.want, tc.fineSaid)
			}
		})
	}
}
