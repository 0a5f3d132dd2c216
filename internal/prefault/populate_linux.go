//go:build linux && (amd64 || arm64)

package prefault

// populate maps in the pages of [addr, addr+n) as if written
// (madvise(MADV_POPULATE_WRITE)) and returns the raw result: 0, or minus
// the errno. Implemented in populate_linux_$GOARCH.s: a raw system call,
// as the package may import nothing.
func populate(addr, n uintptr) int
