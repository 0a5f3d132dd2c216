package schedule

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// posixZone loads a POSIX TZ string ("EST5EDT,M3.2.0,M11.1.0", "JST-9",
// "<+0330>-3:30"), as glibc's tzset reads a TZ that names no zone file,
// and so as cronie reads such a CRON_TZ. Go evaluates exactly such a
// string as the footer of a TZif v2 file: a file with no transitions, one
// zone type and the string as its footer has Go use the string for every
// instant. Go falls back to the zone type, silently, when the footer does
// not parse, so the string is checked first (checkPOSIXTZ), and the zone
// type's abbreviation is one no POSIX name can be, to catch any fallback.
func posixZone(s string) (*time.Location, error) {
	if err := checkPOSIXTZ(s); err != nil {
		return nil, err
	}
	loc, err := time.LoadLocationFromTZData(s, tzifFooterOnly(s))
	if err != nil {
		return nil, err
	}
	if name, _ := time.Unix(0, 0).In(loc).Zone(); name == fallbackAbbr {
		return nil, errors.New("Go's time package cannot read it")
	}
	return loc, nil
}

// fallbackAbbr names the zone type Go uses when it cannot read the footer.
const fallbackAbbr = "TZ?"

// tzifFooterOnly is a TZif version 2 file with no transitions, one zone
// type (UTC, named fallbackAbbr) and footer as its POSIX TZ footer.
func tzifFooterOnly(footer string) []byte {
	var b bytes.Buffer
	block := func() {
		b.WriteString("TZif2")
		b.Write(make([]byte, 15))
		// isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
		for _, n := range []uint32{0, 0, 0, 0, 1, uint32(len(fallbackAbbr) + 1)} {
			binary.Write(&b, binary.BigEndian, n)
		}
		b.Write([]byte{0, 0, 0, 0, 0, 0}) // utoff 0, not DST, abbreviation at 0
		b.WriteString(fallbackAbbr + "\x00")
	}
	block() // version 1 data, which a v2 reader skips
	block()
	b.WriteString("\n" + footer + "\n")
	return b.Bytes()
}

// checkPOSIXTZ checks s against the grammar glibc's tzset and Go's time
// package both read: std offset [dst [offset] [,rule[/time],rule[/time]]],
// names of 3 or more letters or <quoted> (letters, digits, + and -),
// offsets [+-]hh[:mm[:ss]] up to 24 hours, rules Jn (1-365), n (0-365) or
// Mm.w.d, a rule's time [+-]hh[:mm[:ss]] up to 167 hours. A dst without
// rules takes the US rules (M3.2.0,M11.1.0), as both do by default.
func checkPOSIXTZ(s string) error {
	p := &tzParser{s: s}
	if !p.name() {
		return errors.New("no standard-time name (3 or more letters, or <quoted>)")
	}
	if !p.offset(24) {
		return errors.New("the standard-time name needs an offset of at most 24 hours, like 5 or -1 or -3:30")
	}
	if p.s == "" {
		return nil
	}
	if !p.name() {
		return fmt.Errorf("unexpected %q after the offset: want a daylight-time name", p.s)
	}
	if p.s != "" && p.s[0] != ',' && !p.offset(24) {
		return fmt.Errorf("unexpected %q after the daylight-time name", p.s)
	}
	if p.s == "" {
		return nil
	}
	if !p.eat(',') || !p.rule() || !p.eat(',') || !p.rule() || p.s != "" {
		return errors.New("want ,start[/time],end[/time] rules after the daylight-time name, like ,M3.2.0,M11.1.0")
	}
	return nil
}

// tzParser reads a POSIX TZ string from its start.
type tzParser struct{ s string }

func (p *tzParser) eat(c byte) bool {
	if p.s != "" && p.s[0] == c {
		p.s = p.s[1:]
		return true
	}
	return false
}

// name reads a zone abbreviation: 3 or more letters, or <3 or more
// letters, digits, + or ->.
func (p *tzParser) name() bool {
	quoted := p.eat('<')
	i := 0
	for i < len(p.s) && (isLetter(p.s[i]) || quoted && (isDigit(p.s[i]) || p.s[i] == '+' || p.s[i] == '-')) {
		i++
	}
	if i < 3 {
		return false
	}
	p.s = p.s[i:]
	return !quoted || p.eat('>')
}

// offset reads [+-]hh[:mm[:ss]], hh at most maxHours.
func (p *tzParser) offset(maxHours int) bool {
	if !p.eat('+') {
		p.eat('-')
	}
	if !p.num(0, maxHours) {
		return false
	}
	for range 2 {
		if !p.eat(':') {
			return true
		}
		if !p.num(0, 59) {
			return false
		}
	}
	return true
}

// rule reads Jn, n or Mm.w.d, and an optional /time.
func (p *tzParser) rule() bool {
	var ok bool
	switch {
	case p.eat('J'):
		ok = p.num(1, 365)
	case p.eat('M'):
		ok = p.num(1, 12) && p.eat('.') && p.num(1, 5) && p.eat('.') && p.num(0, 6)
	default:
		ok = p.num(0, 365)
	}
	if ok && p.eat('/') {
		ok = p.offset(167)
	}
	return ok
}

// num reads a decimal number from lo to hi.
func (p *tzParser) num(lo, hi int) bool {
	n, i := 0, 0
	for i < len(p.s) && isDigit(p.s[i]) {
		n = n*10 + int(p.s[i]-'0')
		if n > hi {
			return false
		}
		i++
	}
	if i == 0 || n < lo {
		return false
	}
	p.s = p.s[i:]
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
