package catchup

import (
	"bytes"
	"os"
	"os/user"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestReplayOutputOfAnotherUserEscaped: the output of another user's line
// that a root scan replays reaches scan's stderr with its control
// characters escaped (newlines and tabs kept), split writes and UTF-8
// included: raw, a line of an unprivileged user drove the terminal of the
// root who ran scan by hand, moving the cursor up and erasing scan's own
// warnings, writing a forged report line in their place. Each of its lines
// starts with the user's and the task's names (`nobody/t| `), so that a
// line of it never reads as one of scan's own (`catchup: warning: ...`),
// as it did with its escapes and newlines alone. Root's own lines pass
// through unchanged.
func TestReplayOutputOfAnotherUserEscaped(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it runs a line as nobody")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	const script = `printf '\033[1A\033[2Kscanned 0 tasks\r\tz\303'; sleep 0.1; printf '\274rich\ncatchup: warning: forged\n\nend'` // ü split
	tests := map[string]struct {
		as   *user.User
		want string
	}{
		"another user's line": {nobody, `nobody/t| \x1b[1A\x1b[2Kscanned 0 tasks\r` + "\tzürich\nnobody/t| catchup: warning: forged\nnobody/t| \nnobody/t| end"},
		"root's own line":     {nil, "\x1b[1A\x1b[2Kscanned 0 tasks\r\tzürich\ncatchup: warning: forged\n\nend"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			m := testMachine(t.TempDir()+"/ledger.db", time.Now())
			m.Stderr = &out
			sr := &shellReplay{command: script, dir: "/", as: tc.as, user: "nobody"}
			if _, err := replayShell(t.Context(), m, store.Task{Name: "t", Shell: script}, sr, time.Now(), replaySpan{}, nil); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("scan's stderr got %q, want %q", got, tc.want)
			}
		})
	}
}
