// Package deepstack gives a goroutine at once the stack that SQLite's calls
// (modernc.org/sqlite, C translated to Go: deep calls, large frames) and
// package init grow it to.
//
// A goroutine starts with 8 KB of stack. Each time it runs out, the runtime
// allocates one twice the size and copies the old one over, walking every
// frame on it and looking each up in the binary's tables (pages a short
// process faults in for this alone). Growing 8 -> 16 -> 32 -> 64 KB deep
// inside SQLite copies deep stacks three times; growing once, at a
// goroutine's start, copies a frame or two. A catchup process lives a few
// milliseconds, so this was 4-6% of a fire's CPU (docs/performance.md,
// twentieth pass).
//
// This package has no imports, so it is among the first initialized; its
// init grows the main goroutine, on which every package init runs, to 32
// KB.
package deepstack

// sink keeps the frames below from being optimized away.
var sink byte

func init() { reserve32() }

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
