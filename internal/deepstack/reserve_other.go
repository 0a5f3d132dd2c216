//go:build !amd64 && !arm64

package deepstack

// sink keeps the frames below from being optimized away.
var sink byte

//go:noinline
func reserve32() {
	var frame [32 << 10]byte
	sink = frame[sink]
}

// Reserve grows the calling goroutine's stack to at least 64 KB now, if it
// is smaller: call it first in a goroutine that will call into SQLite.
//
//go:noinline
func Reserve() {
	var frame [64 << 10]byte
	sink = frame[sink]
}
