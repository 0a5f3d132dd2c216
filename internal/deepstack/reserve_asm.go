//go:build amd64 || arm64

package deepstack

// reserve32 grows the calling goroutine's stack to fit a 32 KB frame.
// Implemented in reserve_$GOARCH.s.
func reserve32()

// Reserve grows the calling goroutine's stack to at least 64 KB now, if it
// is smaller: call it first in a goroutine that will call into SQLite.
// Implemented in reserve_$GOARCH.s.
func Reserve()
