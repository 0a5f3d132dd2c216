package runner

import (
	"io"
	"os"
	"sync"
	"time"
)

const (
	// copyBufSize is the read size for a child's pipe. A copier holds one
	// such buffer while it runs (taken from copyBufs): besides the tail it
	// is the only per-stream memory, so memory stays bounded.
	copyBufSize = 32 << 10
	// writerGrace is how long finish waits for a copier that is stuck
	// writing to a slow or blocked destination after its pipe was closed.
	writerGrace = 500 * time.Millisecond
)

// copyBufs keeps the copy buffers of finished streams for the next ones: a
// scan replaying thousands of slots runs two streams per slot, and a fresh
// 32 KiB buffer for each was most of what such a scan allocated.
var copyBufs = sync.Pool{New: func() any { return new([copyBufSize]byte) }}

// stream copies one of the child's output pipes to a destination writer and
// into a Tail.
//
// Invariants:
//   - the pipe is always drained: a failing destination is dropped and
//     reading goes on, so the child never blocks on a dead reader;
//   - tail is only touched under mu;
//   - once detached, the copier writes nothing more to tail or dst (a
//     destination write already in progress may still complete).
type stream struct {
	r   *os.File  // read end; owned by the stream, closed by finish
	dst io.Writer // may be nil

	mu       sync.Mutex
	tail     *Tail
	detached bool

	done chan struct{} // closed when copy returns
}

// newStream creates a pipe whose write end is to be handed to the child.
// The caller must close the returned write end once the child has started.
func newStream(dst io.Writer, tailSize int) (*stream, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	s := &stream{r: r, dst: dst, tail: NewTail(tailSize), done: make(chan struct{})}
	return s, w, nil
}

// copy runs until the pipe reports EOF or an error (including being closed
// by finish).
func (s *stream) copy() {
	defer close(s.done)
	pooled := copyBufs.Get().(*[copyBufSize]byte)
	defer copyBufs.Put(pooled)
	buf := pooled[:]
	dst := s.dst
	for {
		n, err := s.r.Read(buf)
		if n > 0 {
			s.mu.Lock()
			if s.detached {
				s.mu.Unlock()
				return
			}
			_, _ = s.tail.Write(buf[:n])
			s.mu.Unlock()
			if dst != nil {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					dst = nil // keep draining into the tail only
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// finish closes the read end (unblocking a pending Read), waits at most
// writerGrace for the copier to stop, then detaches it and returns a
// snapshot of the tail and the byte count.
func (s *stream) finish() ([]byte, int64) {
	_ = s.r.Close()
	t := time.NewTimer(writerGrace)
	select {
	case <-s.done:
	case <-t.C:
	}
	t.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.detached = true
	return s.tail.Bytes(), s.tail.Total()
}

// abandon releases a stream whose child never started.
func (s *stream) abandon() {
	_ = s.r.Close()
}

// streams is the pair of optional captured outputs; a nil member means that
// stream was not captured.
type streams struct {
	out, err *stream
}

// done returns, for each stream, a channel closed once it reached EOF; nil
// for a stream not captured.
func (ss streams) done() [2]<-chan struct{} {
	var chs [2]<-chan struct{}
	for i, s := range []*stream{ss.out, ss.err} {
		if s != nil {
			chs[i] = s.done
		}
	}
	return chs
}

func (ss streams) start() {
	for _, s := range []*stream{ss.out, ss.err} {
		if s != nil {
			go s.copy()
		}
	}
}

func (ss streams) abandon() {
	for _, s := range []*stream{ss.out, ss.err} {
		if s != nil {
			s.abandon()
		}
	}
}
