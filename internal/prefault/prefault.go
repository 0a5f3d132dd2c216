// Package prefault maps in, with one system call, the heap pages that
// package init and a short command are about to touch.
//
// A page of memory is mapped in the first time it is touched: one page
// fault each, a trap into the kernel. On some virtual machines a trap
// costs 10-15 us, while madvise(MADV_POPULATE_WRITE) maps the same pages
// in a batch at under 1 us each (docs/performance-history.md, twenty-seventh
// pass). `catchup version` faults in about 150 heap pages after this
// package's init, a fire about 200: 1.5-3 ms of a 14-25 ms process there.
//
// The heap grows upward from where it ends now, so the pages to map are
// those just above the newest part of it. internal/deepstack's init,
// which runs just before this one (packages without imports are
// initialized in the order of their paths), has just moved the main
// goroutine to a new 64 KB stack taken from the top of the heap; the
// address of a local variable is on it.
//
// Invariants: the range lies inside the Go heap arena the mark is in
// (heap arenas are 64 MB and aligned), so nothing but the Go heap is
// touched; MADV_POPULATE_WRITE allocates zeroed pages and changes no
// byte, and stops at the first page the runtime has not mapped yet
// (it fails there, which is fine: those pages fault in as before). A
// kernel older than 5.14 refuses the advice and nothing happens. The
// cost is at most the pages mapped and never used: under 1 MB of
// resident memory, which the runtime counts as released until it uses
// them (a long-lived process, the daemon, keeps them; GOMEMLIMIT does not
// see them).
//
// This package has no imports, so it is initialized among the first;
// keep it that way (cmd's TestReleasedStart checks the order).
package prefault

import "unsafe"

const (
	// ahead is how much of the heap above the mark is mapped: about
	// what `version` grows it by, less than a fire's (about 1.7 MB,
	// docs/performance.md). A page mapped and not used costs its zeroing
	// (0.5-0.8 us); a page left to fault costs the trap, 8-15 us on the
	// guests where this pays and about 1 us on the fastest seen, where 2
	// MB made `version` 6% slower than 1 MB and than none at all.
	ahead = 1 << 20
	// arenaBytes is the Go runtime's heap arena size on 64-bit Linux
	// (runtime.heapArenaBytes).
	arenaBytes = 64 << 20
	// alignBytes is the largest page size Linux has on amd64 and arm64
	// (4, 16 or 64 KB): a range starting on it starts on a page, as
	// madvise requires, whatever the kernel's page size. It stays in the
	// mark's 4 MB piece of mapped heap (the runtime maps the heap in
	// pieces aligned to 4 MB).
	alignBytes = 64 << 10
)

func init() {
	var mark byte
	start, end := heapAhead(uintptr(unsafe.Pointer(&mark)))
	populate(start, end-start)
}

// heapAhead is the range to map for a mark in the heap: from the mark's
// 64 KB block (alignBytes), ahead bytes, not past the end of the mark's
// arena.
func heapAhead(mark uintptr) (start, end uintptr) {
	start = mark &^ (alignBytes - 1)
	end = start + ahead
	if arenaEnd := (mark &^ (arenaBytes - 1)) + arenaBytes; end > arenaEnd {
		end = arenaEnd
	}
	return start, end
}
