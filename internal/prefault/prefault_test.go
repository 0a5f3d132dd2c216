package prefault

import "testing"

func TestHeapAhead(t *testing.T) {
	const arena = 0x7a0000000000 // a 64 MB-aligned arena base
	tests := map[string]struct {
		mark, start, end uintptr
	}{
		"a mark at a page's start":      {arena + 0x100000, arena + 0x100000, arena + 0x100000 + ahead},
		"a mark inside a page":          {arena + 0x100abc, arena + 0x100000, arena + 0x100000 + ahead},
		"a mark near the arena's end":   {arena + arenaBytes - 0x3456, arena + arenaBytes - 0x10000, arena + arenaBytes},
		"a mark in a 64 KB block":       {arena + 0x12f456, arena + 0x120000, arena + 0x120000 + ahead},
		"a mark in the arena's last MB": {arena + arenaBytes - 1<<20, arena + arenaBytes - 1<<20, arena + arenaBytes},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			start, end := heapAhead(tc.mark)
			if start != tc.start || end != tc.end {
				t.Errorf("heapAhead(%#x) = [%#x, %#x), want [%#x, %#x)", tc.mark, start, end, tc.start, tc.end)
			}
		})
	}
}
