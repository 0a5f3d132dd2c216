//go:build linux && (amd64 || arm64)

package prefault

import (
	"syscall"
	"testing"
	"unsafe"
)

// TestPopulateMapsPagesIn: populate maps in exactly the pages it is given,
// without touching them, and stops where the mapping is not writable.
func TestPopulateMapsPagesIn(t *testing.T) {
	const pages = 64
	mem, err := syscall.Mmap(-1, 0, pages*pageBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	base := uintptr(unsafe.Pointer(&mem[0]))
	// The last quarter is made unwritable: populate must stop there.
	if err := syscall.Mprotect(mem[48*pageBytes:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if got := resident(t, mem); got != 0 {
		t.Fatalf("a fresh mapping has %d pages resident, want 0", got)
	}

	if r := populate(base+uintptr(8*pageBytes), uintptr(16*pageBytes)); r != 0 {
		t.Fatalf("populate of 16 writable pages returned %d, want 0 (is MADV_POPULATE_WRITE supported? kernel 5.14+)", r)
	}
	if got := resident(t, mem[:8*pageBytes]); got != 0 {
		t.Errorf("%d pages before the range are resident, want 0", got)
	}
	if got := resident(t, mem[8*pageBytes:24*pageBytes]); got != 16 {
		t.Errorf("%d of the 16 pages populated are resident", got)
	}
	if got := resident(t, mem[24*pageBytes:]); got != 0 {
		t.Errorf("%d pages after the range are resident, want 0", got)
	}

	if r := populate(base+uintptr(32*pageBytes), uintptr(32*pageBytes)); r >= 0 {
		t.Errorf("populate into an unwritable page returned %d, want minus an errno", r)
	}
	if got := resident(t, mem[32*pageBytes:48*pageBytes]); got != 16 {
		t.Errorf("%d of the 16 writable pages before the unwritable ones are resident", got)
	}
	for i, b := range mem[:48*pageBytes] {
		if b != 0 {
			t.Fatalf("byte %d is %d after populate, want 0", i, b)
		}
	}
}

// pageBytes is the kernel's page size.
var pageBytes = syscall.Getpagesize()

// resident counts the pages of mem in memory (mincore(2)).
func resident(t *testing.T, mem []byte) int {
	t.Helper()
	vec := make([]byte, (len(mem)+pageBytes-1)/pageBytes)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
