package crontab

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// zeros reads NUL bytes without end, counting them.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestRead pins the cap on what is read of a crontab: up to MaxSize bytes
// whole, more refused with ErrTooLarge after reading no more than one byte
// past the cap, whatever the source holds (a sparse file of any size, a
// pipe without end).
func TestRead(t *testing.T) {
	tests := map[string]struct {
		size    int64 // bytes in the source; -1: without end
		tooBig  bool
		readMax int64 // the most that may be read from it
	}{
		"empty":                {size: 0, readMax: 0},
		"a line":               {size: 40, readMax: 40},
		"exactly the cap":      {size: MaxSize, readMax: MaxSize},
		"one byte over":        {size: MaxSize + 1, tooBig: true, readMax: MaxSize + 1},
		"2 GiB":                {size: 2 << 30, tooBig: true, readMax: MaxSize + 1},
		"a source without end": {size: -1, tooBig: true, readMax: MaxSize + 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			z := &zeros{}
			var r io.Reader = z
			if tc.size >= 0 {
				r = io.LimitReader(z, tc.size)
			}
			data, err := Read(r)
			if tc.tooBig {
				if !errors.Is(err, ErrTooLarge) || data != nil {
					t.Fatalf("Read = %d bytes, %v; want nothing, ErrTooLarge", len(data), err)
				}
			} else if err != nil || int64(len(data)) != tc.size || !bytes.Equal(data, make([]byte, tc.size)) {
				t.Fatalf("Read = %d bytes, %v; want %d bytes", len(data), err, tc.size)
			}
			// io.ReadAll's buffer reads may ask for more than needed, but
			// never past what LimitReader lets through.
			if z.n > tc.readMax {
				t.Fatalf("read %d bytes of the source, want at most %d", z.n, tc.readMax)
			}
		})
	}
	if want := "it is larger than 16 MiB, the most catchup reads of a crontab: none of its lines were read"; ErrTooLarge.Error() != want {
		t.Errorf("ErrTooLarge = %q, want %q", ErrTooLarge, want)
	}
}
