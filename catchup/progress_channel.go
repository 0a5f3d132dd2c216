package catchup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/catchup/catchup/store"
)

// The progress channel: a job reports its progress through the catchup
// that runs it, not to the ledger directly. The job gets one end of a
// socket pair as a file descriptor (CATCHUP_PROGRESS_FD); `catchup
// progress` sends its request there with a socket of its own for the
// answer, and this process records it with its own connection to the
// ledger. So the job needs no ledger credentials (a PostgreSQL password
// never reaches it), and can report on its own run only.

// EnvProgressFD names the job's end of the progress channel.
const EnvProgressFD = "CATCHUP_PROGRESS_FD"

// ProgressReport is what `catchup progress` sends.
type ProgressReport struct {
	RunID   int64  `json:"run_id"`
	Percent int    `json:"percent"`
	Note    string `json:"note"`
}

type progressAnswer struct {
	Error    string `json:"error,omitempty"`
	NotFound bool   `json:"not_found,omitempty"`
}

// progressMax bounds one request (a note is short text).
const progressMax = 1 << 20

// progressChannel serves one running run's reports.
type progressChannel struct {
	child *os.File // the job's end, passed to it
	ours  *os.File // non-blocking, served through the runtime's poller
	done  chan struct{}
}

// openProgressChannel starts serving the reports of run id into st.
func openProgressChannel(ctx context.Context, st store.Store, id int64) (*progressChannel, error) {
	ours, child, err := socketPair()
	if err != nil {
		return nil, fmt.Errorf("progress channel: %w", err)
	}
	pc := &progressChannel{child: child, ours: ours, done: make(chan struct{})}
	go pc.serve(context.WithoutCancel(ctx), st, id)
	return pc, nil
}

// close stops serving; a job (or an orphan of it) that reports later gets
// an error.
func (pc *progressChannel) close() {
	if pc == nil {
		return
	}
	closeUnforked(pc.child, pc.ours) // no copy left in a child being started: a late report is told at once
	<-pc.done
}

func (pc *progressChannel) serve(ctx context.Context, st store.Store, id int64) {
	defer close(pc.done)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	for {
		msg, reply, err := pc.receive(oob)
		if err != nil {
			return // closed: the run is over
		}
		if reply == nil {
			continue // not a request of catchup progress: nowhere to answer
		}
		ans := handleReport(ctx, st, id, msg)
		b, _ := json.Marshal(ans)
		if rc, err := net.FileConn(reply); err == nil {
			rc.SetWriteDeadline(time.Now().Add(5 * time.Second))
			rc.Write(b)
			rc.Close()
		}
		reply.Close()
	}
}

// receive waits for the next message and reads it with the descriptor it
// carries (nil if none). Most jobs never report, so no buffer is allocated
// before a message is there: its length is peeked first (the channel is a
// SOCK_SEQPACKET pair, whose recv with MSG_TRUNC tells a message's whole
// length), and a buffer of that length, at most progressMax, is made for it.
// A longer message is cut at progressMax, as a read into a progressMax
// buffer would. err is set once the channel is closed.
func (pc *progressChannel) receive(oob []byte) (msg []byte, reply *os.File, err error) {
	n, err := pc.pending()
	if err == nil && n > 0 {
		buf := make([]byte, min(n, progressMax))
		var oobn int
		if n, oobn, err = pc.recvmsg(buf, oob); err == nil && n > 0 {
			return buf[:n], receivedFile(oob[:oobn]), nil
		}
	}
	if err == nil {
		err = io.EOF
	}
	return nil, nil, err
}

// pending waits until a message can be read and returns its length; 0 at
// the end of the channel.
func (pc *progressChannel) pending() (int, error) {
	rc, err := pc.ours.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		var r uintptr
		var errno syscall.Errno
		for {
			r, _, errno = syscall.Syscall6(syscall.SYS_RECVFROM, fd, 0, 0,
				syscall.MSG_PEEK|syscall.MSG_TRUNC|syscall.MSG_DONTWAIT, 0, 0)
			if errno != syscall.EINTR {
				break
			}
		}
		if errno == syscall.EAGAIN {
			return false // not readable yet: wait for the poller
		}
		n, perr = int(r), nil
		if errno != 0 {
			perr = errno
		}
		return true
	})
	return n, errors.Join(err, perr)
}

// recvmsg reads the next message and its control data, waiting for the
// poller while there is none.
func (pc *progressChannel) recvmsg(buf, oob []byte) (n, oobn int, err error) {
	rc, err := pc.ours.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_DONTWAIT|syscall.MSG_CMSG_CLOEXEC)
			if rerr != syscall.EINTR {
				break
			}
		}
		return rerr != syscall.EAGAIN
	})
	return n, oobn, errors.Join(err, rerr)
}

func handleReport(ctx context.Context, st store.Store, id int64, msg []byte) progressAnswer {
	var r ProgressReport
	if err := json.Unmarshal(msg, &r); err != nil {
		return progressAnswer{Error: "malformed progress report"}
	}
	if r.RunID != id {
		return progressAnswer{Error: fmt.Sprintf("run %d is not this job's run (%d)", r.RunID, id)}
	}
	if r.Percent < 0 || r.Percent > 100 {
		return progressAnswer{Error: "progress must be from 0 to 100"}
	}
	if err := CheckNote(r.Note); err != nil {
		return progressAnswer{Error: err.Error()}
	}
	err := st.SetProgress(ctx, id, r.Percent, r.Note)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return progressAnswer{NotFound: true, Error: err.Error()}
	case err != nil:
		return progressAnswer{Error: err.Error()}
	}
	return progressAnswer{}
}

// SendProgress reports r through the progress channel at fd, and returns
// the answer's error. errors.Is(err, store.ErrNotFound) when the run is not
// running; ErrNoProgressChannel when fd is not a progress channel.
func SendProgress(fd int, r ProgressReport) error {
	if !isSeqPacket(fd) {
		return ErrNoProgressChannel
	}
	dup, err := syscall.Dup(fd) // the caller's descriptor stays as it is
	if err != nil {
		return ErrNoProgressChannel
	}
	f := os.NewFile(uintptr(dup), "progress")
	ch, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return ErrNoProgressChannel
	}
	defer ch.Close()
	mine, theirs, err := socketPair()
	if err != nil {
		return err
	}
	defer mine.Close()
	msg, _ := json.Marshal(r)
	_, _, err = ch.(*net.UnixConn).WriteMsgUnix(msg, syscall.UnixRights(int(theirs.Fd())), nil)
	theirs.Close()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoProgressChannel, err)
	}
	answer, err := net.FileConn(mine)
	if err != nil {
		return err
	}
	defer answer.Close()
	answer.SetReadDeadline(time.Now().Add(time.Minute))
	buf := make([]byte, 64<<10)
	n, err := answer.Read(buf)
	if err != nil {
		return fmt.Errorf("no answer from the catchup running this job: %w", err)
	}
	var ans progressAnswer
	if err := json.Unmarshal(buf[:n], &ans); err != nil {
		return errors.New("malformed answer from the catchup running this job")
	}
	switch {
	case ans.NotFound:
		return fmt.Errorf("%w: %s", store.ErrNotFound, ans.Error)
	case ans.Error != "":
		return errors.New(ans.Error)
	}
	return nil
}

// ErrNoProgressChannel: the descriptor is not (or no longer) a progress
// channel; the caller may reach the ledger directly instead.
var ErrNoProgressChannel = errors.New("no progress channel")

// socketPair makes a connected pair of message sockets, close-on-exec.
func socketPair() (a, b *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	// a is read through the poller (os.NewFile adds a non-blocking
	// descriptor to it); b stays blocking for the job.
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "progress"), os.NewFile(uintptr(fds[1]), "progress"), nil
}

// isSeqPacket reports whether fd is a Unix message socket.
func isSeqPacket(fd int) bool {
	typ, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE)
	if err != nil || typ != syscall.SOCK_SEQPACKET {
		return false
	}
	dom, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_DOMAIN)
	return err == nil && dom == syscall.AF_UNIX
}

// receivedFile is the one descriptor passed with a message, as a file; nil
// if there is none (extra descriptors are closed).
func receivedFile(oob []byte) *os.File {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var f *os.File
	for _, m := range msgs {
		fds, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if f == nil {
				f = os.NewFile(uintptr(fd), "progress-reply")
			} else {
				syscall.Close(fd)
			}
		}
	}
	return f
}
