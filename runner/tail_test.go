package runner

import (
	"bytes"
	"fmt"
	"testing"
)

func TestTail(t *testing.T) {
	tests := map[string]struct {
		n      int
		writes []string
		want   string
	}{
		"zero keeps nothing":       {n: 0, writes: []string{"abc", "def"}, want: ""},
		"negative keeps nothing":   {n: -5, writes: []string{"abc"}, want: ""},
		"no writes":                {n: 4, writes: nil, want: ""},
		"under capacity":           {n: 10, writes: []string{"ab", "cd"}, want: "abcd"},
		"exactly full":             {n: 4, writes: []string{"ab", "cd"}, want: "abcd"},
		"wraps once":               {n: 4, writes: []string{"abc", "def"}, want: "cdef"},
		"single write larger":      {n: 3, writes: []string{"abcdefgh"}, want: "fgh"},
		"large after partial":      {n: 3, writes: []string{"a", "bcdefg"}, want: "efg"},
		"many small wraps":         {n: 3, writes: []string{"a", "b", "c", "d", "e", "f", "g"}, want: "efg"},
		"empty writes ignored":     {n: 2, writes: []string{"", "a", "", "b", ""}, want: "ab"},
		"write equal to capacity":  {n: 3, writes: []string{"xy", "abc"}, want: "abc"},
		"binary bytes kept as is":  {n: 4, writes: []string{"\x00\xff", "\xfe\x80\x01"}, want: "\xff\xfe\x80\x01"},
		"large capacity small use": {n: 1 << 20, writes: []string{"hello"}, want: "hello"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tl := NewTail(tc.n)
			var total int64
			for _, w := range tc.writes {
				n, err := tl.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += int64(len(w))
			}
			if got := tl.Bytes(); string(got) != tc.want {
				t.Errorf("Bytes() = %q, want %q", got, tc.want)
			}
			if got := tl.Total(); got != total {
				t.Errorf("Total() = %d, want %d", got, total)
			}
		})
	}
}

func TestTailBytesIsCopy(t *testing.T) {
	tl := NewTail(4)
	_, _ = tl.Write([]byte("abcd"))
	b := tl.Bytes()
	b[0] = 'X'
	if got := string(tl.Bytes()); got != "abcd" {
		t.Fatalf("Bytes() after mutating a copy = %q, want %q", got, "abcd")
	}
}

func TestTailDoesNotRetainInput(t *testing.T) {
	tl := NewTail(8)
	p := []byte("abc")
	_, _ = tl.Write(p)
	p[0] = 'X'
	if got := string(tl.Bytes()); got != "abc" {
		t.Fatalf("Bytes() = %q, want %q", got, "abc")
	}
}

func TestTailMemoryBounded(t *testing.T) {
	const n = 1000
	tl := NewTail(n)
	chunk := bytes.Repeat([]byte("x"), 777)
	for range 1000 {
		_, _ = tl.Write(chunk)
		if cap(tl.buf) > n {
			t.Fatalf("cap(buf) = %d, exceeds %d", cap(tl.buf), n)
		}
	}
}

// naiveTail is the reference: keep everything, slice the end.
func naiveTail(all []byte, n int) []byte {
	if n <= 0 {
		return []byte{}
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

func FuzzTail(f *testing.F) {
	f.Add(uint8(4), []byte("hello world"), []byte{3, 1, 7})
	f.Add(uint8(0), []byte("abc"), []byte{1})
	f.Add(uint8(1), []byte{0, 255, 128, 7}, []byte{0, 2, 2})
	f.Add(uint8(16), bytes.Repeat([]byte("ab"), 40), []byte{16, 15, 17, 1, 0, 32})
	f.Fuzz(func(t *testing.T, n uint8, data, cuts []byte) {
		size := int(n % 64)
		tl := NewTail(size)
		var all []byte
		rest := data
		for i := 0; len(rest) > 0; i++ {
			k := len(rest)
			if len(cuts) > 0 {
				k = min(int(cuts[i%len(cuts)]), len(rest))
			}
			if i > 4*len(data)+4 { // zero-length cuts must not loop forever
				k = len(rest)
			}
			_, _ = tl.Write(rest[:k])
			all = append(all, rest[:k]...)
			rest = rest[k:]
			if got, want := tl.Bytes(), naiveTail(all, size); !bytes.Equal(got, want) {
				t.Fatalf("size %d after %d bytes: Bytes() = %q, want %q", size, len(all), got, want)
			}
			if tl.Total() != int64(len(all)) {
				t.Fatalf("Total() = %d, want %d", tl.Total(), len(all))
			}
		}
	})
}

func BenchmarkTailWrite(b *testing.B) {
	for _, chunk := range []int{64, 4 << 10, 32 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			tl := NewTail(64 << 10)
			p := bytes.Repeat([]byte("y"), chunk)
			b.SetBytes(int64(chunk))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = tl.Write(p)
			}
		})
	}
}
