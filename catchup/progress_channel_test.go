package catchup

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

// TestProgressChannel: a report through the channel is recorded on the
// channel's run only; another run's id is refused; once the run is over
// (the channel closed) a late report gets an error, never a hang.
func TestProgressChannel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := testLedger(t)
	now := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	var ids []int64
	for range 2 {
		id, err := st.AddRun(ctx, store.Run{Task: "t", Trigger: store.TriggerManual, Status: store.StatusRunning,
			Attempt: 1, StartedAt: now, Host: "testhost"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	pc, err := openProgressChannel(ctx, st, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	fd := int(pc.child.Fd())
	if err := SendProgress(fd, ProgressReport{RunID: ids[0], Percent: 40, Note: "row 812"}); err != nil {
		t.Fatalf("own run: %v", err)
	}
	if err := SendProgress(fd, ProgressReport{RunID: ids[1], Percent: 90}); err == nil {
		t.Error("a report on another run was accepted")
	}
	for i, want := range []string{"row 812", ""} {
		r, err := st.Run(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if r.Checkpoint != want {
			t.Errorf("run %d checkpoint %q, want %q", ids[i], r.Checkpoint, want)
		}
	}
	child, err := dupFile(pc.child)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	pc.close()
	err = SendProgress(int(child.Fd()), ProgressReport{RunID: ids[0], Percent: 50})
	if !errors.Is(err, ErrNoProgressChannel) {
		t.Errorf("a report after the run: %v, want ErrNoProgressChannel", err)
	}
}

// dupFile is a second descriptor of f, as a job holds after the run ended.
func dupFile(f *os.File) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// TestProgressChannelMessageSizes: the channel reads a report of any length
// whole up to progressMax (its buffer is sized to the message), cuts a longer
// one at progressMax (it is then malformed), and goes on serving after both.
func TestProgressChannelMessageSizes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := testLedger(t)
	now := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	id, err := st.AddRun(ctx, store.Run{Task: "t", Trigger: store.TriggerManual, Status: store.StatusRunning,
		Attempt: 1, StartedAt: now, Host: "testhost"})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := openProgressChannel(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.close()
	report := func(note string) []byte {
		b, _ := json.Marshal(ProgressReport{RunID: id, Percent: 10, Note: note})
		return b
	}
	long, limit := strings.Repeat("n", 300<<10), strings.Repeat("k", MaxCheckpoint)
	tests := []struct {
		name    string
		msg     []byte
		wantErr string // "" = recorded
		want    string // the checkpoint afterwards
	}{
		{name: "short report", msg: report("row 1"), want: "row 1"},
		{name: "note at MaxCheckpoint", msg: report(limit), want: limit},
		{name: "300 KiB note", msg: report(long), want: limit,
			wantErr: "--note is 307200 bytes: a checkpoint is at most 4096 bytes (keep the job's state in a file, and name it in the note)"},
		{name: "note with a NUL byte", msg: report("row\x001"), want: limit,
			wantErr: "--note has a NUL byte, which no environment variable can hold"},
		{name: "beyond progressMax", msg: report(strings.Repeat("x", progressMax)),
			wantErr: "malformed progress report", want: limit},
		{name: "served after a cut message", msg: report("row 2"), want: "row 2"},
	}
	for _, tt := range tests {
		ans := sendRaw(t, int(pc.child.Fd()), tt.msg)
		if ans.Error != tt.wantErr {
			t.Errorf("%s: answer error %q, want %q", tt.name, ans.Error, tt.wantErr)
		}
		r, err := st.Run(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Checkpoint != tt.want {
			t.Errorf("%s: checkpoint of %d bytes, want %d", tt.name, len(r.Checkpoint), len(tt.want))
		}
	}
}

// sendRaw sends msg as one message on the channel at fd, with a socket for
// the answer, from a socket whose send buffer holds it, and reads the answer.
func sendRaw(t *testing.T, fd int, msg []byte) progressAnswer {
	t.Helper()
	dup, err := syscall.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(dup)
	if err := syscall.SetsockoptInt(dup, syscall.SOL_SOCKET, syscall.SO_SNDBUF, len(msg)+64<<10); err != nil {
		t.Fatal(err)
	}
	mine, theirs, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	err = syscall.Sendmsg(dup, msg, syscall.UnixRights(int(theirs.Fd())), nil, 0)
	theirs.Close()
	if err != nil {
		t.Fatalf("send %d bytes: %v", len(msg), err)
	}
	answer, err := net.FileConn(mine)
	if err != nil {
		t.Fatal(err)
	}
	defer answer.Close()
	answer.SetReadDeadline(time.Now().Add(time.Minute))
	buf := make([]byte, 64<<10)
	n, err := answer.Read(buf)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	var ans progressAnswer
	if err := json.Unmarshal(buf[:n], &ans); err != nil {
		t.Fatalf("answer %q: %v", buf[:n], err)
	}
	return ans
}
