package schedule

// Slot enumeration: zone periods, wall-clock cursors and the calendar
// arithmetic behind Schedule.Slots, Prev and Next (see schedule.go).

import (
	"math/bits"
	"time"
)

const (
	minUnix = -62135596800 // 0001-01-01T00:00:00Z
	maxUnix = 253402300799 // 9999-12-31T23:59:59Z
	alpha   = -1 << 50     // period start "since forever"
	omega   = 1 << 50      // period end "forever"
	// near bounds how far (in real time) a zone transition can move a
	// wall time: more than any UTC offset difference in tzdata.
	near = 48 * 3600
)

// period is a stretch [start, end) of real time (unix seconds) with one
// UTC offset (seconds).
type period struct {
	start, end, off int64
}

func (s *Schedule) periodAt(u int64) period {
	t := time.Unix(u, 0).In(s.loc)
	_, off := t.Zone()
	st, en := t.ZoneBounds()
	p := period{start: alpha, end: omega, off: int64(off)}
	if !st.IsZero() {
		p.start = min(st.Unix(), u)
	}
	if !en.IsZero() {
		p.end = max(en.Unix(), u+1) // never stall on a bad bound
	}
	return p
}

// each calls fn for every slot u (unix seconds) with after < u <= upTo, in
// increasing order, until fn returns false.
func (s *Schedule) each(after, upTo int64, fn func(int64) bool) {
	after = max(after, minUnix-1)
	upTo = min(upTo, maxUnix)
	var c cursor
	for pos := after + 1; pos <= upTo; {
		p := s.periodAt(pos)
		atStart := p.start == pos // the transition into p is in range
		gapSlot := false
		if atStart && s.fixed {
			if q := s.periodAt(pos - 1); q.off < p.off && s.gapMatches(&c, pos+q.off, pos+p.off) {
				gapSlot = true
				if !fn(pos) {
					return
				}
			}
		}
		var repeats []period // walls of p already shown earlier, as [start, end) wall ranges
		if s.fixed {
			repeats = s.repeatedWalls(p)
		}
		last := min(p.end-1, upTo)
		for w, ok := s.nextWall(&c, pos+p.off, last+p.off); ok; w, ok = s.nextWall(&c, w+60, last+p.off) {
			u := w - p.off
			if gapSlot && u == p.start {
				continue // the gap's slot is this very instant
			}
			if inRanges(w, repeats) {
				continue
			}
			if !fn(u) {
				return
			}
		}
		if p.end >= omega {
			return
		}
		pos = p.end
	}
}

// gapMatches reports whether a matching wall time in [lo, hi) is shown by
// no period at all.
func (s *Schedule) gapMatches(c *cursor, lo, hi int64) bool {
	for w, ok := s.nextWall(c, lo, hi-1); ok; w, ok = s.nextWall(c, w+60, hi-1) {
		if !s.wallShown(w) {
			return true
		}
	}
	return false
}

// wallShown reports whether some instant has wall time w.
func (s *Schedule) wallShown(w int64) bool {
	for x := w - near; x <= w+near; {
		p := s.periodAt(x)
		if u := w - p.off; u >= p.start && u < p.end {
			return true
		}
		if p.end >= omega {
			break
		}
		x = p.end
	}
	return false
}

// repeatedWalls returns the wall ranges of period p that earlier periods
// already showed (the second half of a fall-back), as [start, end) pairs.
func (s *Schedule) repeatedWalls(p period) []period {
	var out []period
	pLo := p.start + p.off
	for q, n := p, 0; q.start > alpha && q.start > p.start-near && n < 16; n++ {
		q = s.periodAt(q.start - 1)
		lo, hi := max(q.start+q.off, pLo), q.end+q.off
		if lo < hi {
			out = append(out, period{start: lo, end: hi})
		}
	}
	return out
}

func inRanges(w int64, rs []period) bool {
	for _, r := range rs {
		if w >= r.start && w < r.end {
			return true
		}
	}
	return false
}

// cursor caches the day mask of the last month looked at.
type cursor struct {
	y, m  int64
	mask  uint32
	valid bool
}

// nextWall returns the earliest matching wall time (wall seconds, minute
// aligned) in [from, limit].
func (s *Schedule) nextWall(c *cursor, from, limit int64) (int64, bool) {
	w := floorDiv(from+59, 60) * 60
	for w <= limit {
		days := floorDiv(w, 86400)
		sod := w - days*86400
		y, m, d := civilFromDays(days)
		if s.month&(1<<m) == 0 {
			w = daysFromCivil(y, m+1, 1) * 86400
			continue
		}
		if !c.valid || c.y != y || c.m != m {
			c.y, c.m, c.mask, c.valid = y, m, s.monthMask(y, m), true
		}
		dm := c.mask &^ (1<<d - 1)
		if dm == 0 {
			w = daysFromCivil(y, m+1, 1) * 86400
			continue
		}
		if d2 := int64(bits.TrailingZeros32(dm)); d2 != d {
			days += d2 - d
			sod = 0
		}
		h, mi := sod/3600, sod%3600/60
		hm := s.hour &^ (1<<h - 1)
		if hm == 0 {
			w = (days + 1) * 86400
			continue
		}
		if h2 := int64(bits.TrailingZeros32(hm)); h2 != h {
			h, mi = h2, 0
		}
		mm := s.minute &^ (1<<mi - 1)
		if mm == 0 {
			w = days*86400 + (h+1)*3600
			continue
		}
		w = days*86400 + h*3600 + int64(bits.TrailingZeros64(mm))*60
		if w > limit {
			return 0, false
		}
		return w, true
	}
	return 0, false
}

// monthMask returns the matching days (bit d for day d) of month m of year
// y, month field aside.
func (s *Schedule) monthMask(y, m int64) uint32 {
	first := daysFromCivil(y, m, 1)
	n := daysFromCivil(y, m+1, 1) - first
	wd := floorMod(first+4, 7) // 1970-01-01 was a Thursday
	var mask uint32
	for d := int64(1); d <= n; d++ {
		if s.dayMatches(int(y), int(m), int(d), int(wd)) {
			mask |= 1 << d
		}
		if wd++; wd == 7 {
			wd = 0
		}
	}
	return mask
}

func (s *Schedule) dayMatches(y, m, d, wd int) bool {
	var date time.Time
	if s.domSpecial || s.dowSpecial {
		date = time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	}
	domDue := s.dom&(1<<d) != 0
	if s.domSpecial {
		domDue = fieldMatches(s.segs[3], 3, date)
	}
	if s.dayMode == dayDomOnly {
		return domDue
	}
	dowDue := s.dow&(1<<wd) != 0
	if s.dowSpecial {
		dowDue = fieldMatches(s.segs[5], 5, date)
	}
	if s.dayMode == dayAnd {
		return domDue && dowDue
	}
	return domDue || dowDue
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// daysFromCivil returns the days since 1970-01-01 of the proleptic Gregorian
// date y-m-d; m may be 13 (January of y+1).
func daysFromCivil(y, m, d int64) int64 {
	if m > 12 {
		y, m = y+1, m-12
	}
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(days int64) (y, m, d int64) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}
