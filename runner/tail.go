package runner

// Tail is a ring buffer that keeps the last n bytes written to it and counts
// every byte it has seen.
//
// Invariants:
//   - memory held is at most n bytes, whatever is written;
//   - Bytes always equals the last min(n, Total()) bytes of the
//     concatenation of every Write, in order;
//   - Write never fails and never retains p.
//
// A Tail is not safe for concurrent use; callers that share one must lock.
type Tail struct {
	max   int
	buf   []byte // grows up to max; once len(buf) == max it is used as a ring
	start int    // index of the oldest byte once the ring is full; 0 before
	total int64
}

// NewTail returns a Tail that keeps the last n bytes. n <= 0 keeps nothing
// but still counts bytes.
func NewTail(n int) *Tail {
	if n < 0 {
		n = 0
	}
	return &Tail{max: n}
}

// Write records p. It always returns len(p), nil.
func (t *Tail) Write(p []byte) (int, error) {
	t.total += int64(len(p))
	if t.max == 0 || len(p) == 0 {
		return len(p), nil
	}
	q := p
	if len(q) > t.max {
		q = q[len(q)-t.max:]
	}
	if len(t.buf) < t.max {
		room := t.max - len(t.buf)
		k := min(room, len(q))
		t.buf = t.grow(k)
		t.buf = append(t.buf, q[:k]...)
		q = q[k:]
	}
	// The ring is full (or q is empty): overwrite from the oldest byte on.
	for len(q) > 0 {
		c := copy(t.buf[t.start:], q)
		q = q[c:]
		t.start = (t.start + c) % t.max
	}
	return len(p), nil
}

// grow makes room for k more bytes in t.buf without ever letting its
// capacity exceed t.max.
func (t *Tail) grow(k int) []byte {
	need := len(t.buf) + k
	if need <= cap(t.buf) {
		return t.buf
	}
	newCap := min(max(2*cap(t.buf), need, 512), t.max)
	nb := make([]byte, len(t.buf), newCap)
	copy(nb, t.buf)
	return nb
}

// Bytes returns a fresh copy of the kept bytes, oldest first.
func (t *Tail) Bytes() []byte {
	out := make([]byte, len(t.buf))
	n := copy(out, t.buf[t.start:])
	copy(out[n:], t.buf[:t.start])
	return out
}

// Total returns the number of bytes ever written.
func (t *Tail) Total() int64 { return t.total }
