package catchup

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestCrontabLineSecretsNotStored: a crontab line found by scan is
// registered with its command part, which can carry secrets: a ledger URL's
// password (--db, CATCHUP_DB=) and a --ping URL (a credential). The ledger
// keeps the command without them (replays re-read the line from its file),
// and scan's warnings show none of them.
func TestCrontabLineSecretsNotStored(t *testing.T) {
	t.Parallel()
	f := newRunFixture(t, "2026-03-01T10:00:30Z")
	var said bytes.Buffer
	f.m.Notice = func(format string, args ...any) { fmt.Fprintf(&said, format+"\n", args...) }
	req := scanRequest()
	req.DryRun = false
	req.Crontabs = []CrontabSource{{Name: "stdin", R: strings.NewReader(
		"0 * * * * catchup run --task pinged --ping https://hc.example/ping/TOKEN-SECRET-1 -- true\n" +
			"0 * * * * catchup run --task pinged2 --ping=https://hc.example/TOKEN-SECRET-2 -- true\n" +
			"0 * * * * CATCHUP_PING_URL=https://hc.example/TOKEN-SECRET-3 catchup run --task pinged3 -- true\n" +
			"0 * * * * CATCHUP_DB='postgres://u:PW-SECRET-4@db/x' catchup run --task pg -- true\n")}}
	rep, err := Scan(t.Context(), f.st, f.m, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pinged", "pinged2"} { // the other lines are not catchup lines: warned about
		task, err := f.st.Task(t.Context(), name)
		if err != nil {
			t.Fatalf("task %s not registered: %v", name, err)
		}
		if strings.Contains(task.Shell, "SECRET") || !strings.Contains(task.Shell, "https://hc.example/...") {
			t.Errorf("task %s is stored with the command %q: want its ping URL's scheme and host only", name, task.Shell)
		}
	}
	all := said.String() + fmt.Sprint(rep.Warnings)
	for _, ts := range rep.Tasks {
		all += fmt.Sprint(ts.Warnings)
	}
	if strings.Contains(all, "SECRET") {
		t.Errorf("scan said a secret:\n%s", all)
	}
}
