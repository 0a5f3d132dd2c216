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
// milliseconds, so this was 4-6% of a fire's CPU (docs/performance-history.md,
// twentieth pass).
//
// This package has no imports, so it is among the first initialized; its
// init grows the main goroutine, on which every package init runs, to 32
// KB.
package deepstack

func init() { reserve32() }

// reserve32 has a 32 KB frame and Reserve a 64 KB one. On amd64 and arm64
// they are written in assembly (reserve_*.s): the function's prologue makes
// the runtime grow the stack, and nothing writes the frame, so the new
// stack's pages are only faulted in as calls reach them. A Go frame of the
// same size is zeroed on entry, touching every page of it (8 and 16 page
// faults, docs/performance-history.md, twenty-sixth pass). reserve_other.go is the
// Go version for other architectures.
