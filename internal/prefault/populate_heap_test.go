//go:build linux && (amd64 || arm64)

package prefault

import (
	"testing"
	"unsafe"
)

// TestPopulateChangesNoHeapByte fills live heap memory with a pattern,
// populates the range init would for a mark among it (and the whole of the
// arena from there), and checks every byte is unchanged.
func TestPopulateChangesNoHeapByte(t *testing.T) {
	var blocks [][]byte
	for i := 0; i < 256; i++ {
		b := make([]byte, 8<<10+i*97)
		for j := range b {
			b[j] = byte(i*31 + j*7 + 1)
		}
		blocks = append(blocks, b)
	}
	for i, b := range blocks {
		mark := uintptr(unsafe.Pointer(&b[0]))
		start, end := heapAhead(mark)
		populate(start, end-start)
		if i%64 == 0 {
			arenaEnd := (mark &^ (arenaBytes - 1)) + arenaBytes
			populate(start, arenaEnd-start)
		}
	}
	for i, b := range blocks {
		for j := range b {
			if b[j] != byte(i*31+j*7+1) {
				t.Fatalf("block %d byte %d is %d after populate, want %d", i, j, b[j], byte(i*31+j*7+1))
			}
		}
	}
}
