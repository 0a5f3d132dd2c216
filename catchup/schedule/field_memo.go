package schedule

import (
	"sync"
	"time"
)

// A crontab's lines mostly share their fields ("0", "*", "*/15"), and each
// field is checked against every value it can take (partValid) and turned
// into the set of values it matches (fieldBits), through gronx, each time
// a schedule is parsed: a quarter of what a scan spent on a crontab line.
// Both are pure functions of the field, remembered here, a bounded number
// of short fields at most (a crontab of distinct fields costs no more
// memory than this, only the time it did).

// maxFieldMemo bounds the fields remembered, and maxMemoField the length
// of one.
const (
	maxFieldMemo = 4096
	maxMemoField = 64
)

type fieldKey struct {
	field string
	pos   int
	valid bool // partValid's answer is remembered, else fieldBits's
}

var fieldMemo = struct {
	sync.Mutex
	m map[fieldKey]uint64
}{m: map[fieldKey]uint64{}}

// remembered is f(field, pos), remembered under key.
func remembered(key fieldKey, f func() uint64) uint64 {
	if len(key.field) > maxMemoField {
		return f()
	}
	fieldMemo.Lock()
	v, ok := fieldMemo.m[key]
	fieldMemo.Unlock()
	if ok {
		return v
	}
	v = f()
	fieldMemo.Lock()
	if len(fieldMemo.m) < maxFieldMemo {
		fieldMemo.m[key] = v
	}
	fieldMemo.Unlock()
	return v
}

// partValidMemo is partValid, remembered.
func partValidMemo(part string, pos int) bool {
	return remembered(fieldKey{part, pos, true}, func() uint64 {
		if partValid(part, pos) {
			return 1
		}
		return 0
	}) == 1
}

// fieldBits is the set of values field seg of position pos (1 minute, 2
// hour, 3 day of month, 4 month, 5 day of week) matches, bit v for value
// v (a day of week from 0, Sunday), remembered.
func fieldBits(seg string, pos int) uint64 {
	return remembered(fieldKey{seg, pos, false}, func() uint64 {
		var bits uint64
		at := func(v int, t time.Time) {
			if fieldMatches(seg, pos, t) {
				bits |= 1 << v
			}
		}
		switch pos {
		case 1:
			for m := 0; m < 60; m++ {
				at(m, time.Date(2000, 1, 1, 0, m, 0, 0, time.UTC))
			}
		case 2:
			for h := 0; h < 24; h++ {
				at(h, time.Date(2000, 1, 1, h, 0, 0, 0, time.UTC))
			}
		case 3:
			for d := 1; d <= 31; d++ { // January 2000 has 31 days
				at(d, time.Date(2000, 1, d, 0, 0, 0, 0, time.UTC))
			}
		case 4:
			for mo := 1; mo <= 12; mo++ {
				at(mo, time.Date(2000, time.Month(mo), 1, 0, 0, 0, 0, time.UTC))
			}
		case 5:
			for w := 0; w < 7; w++ { // 2000-01-02 was a Sunday
				at(w, time.Date(2000, 1, 2+w, 0, 0, 0, 0, time.UTC))
			}
		}
		return bits
	})
}
