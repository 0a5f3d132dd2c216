package crontab

import (
	"fmt"
	"strings"
)

// timeFieldCount explains a line with found time fields, not 5, before
// what (the command, or a system crontab's user field). 6 or 7 are
// supercronic's seconds and years, which a reader of the line as cron's 5
// would misread: the 6th field run as the command (a * as a glob), the
// schedule shifted by one field.
func timeFieldCount(found int, what string) error {
	err := fmt.Errorf("expected 5 time fields before %s, found %d", what, found)
	if found == 6 || found == 7 {
		err = fmt.Errorf("%w: catchup reads cron's 5 (minute to day of week); supercronic's seconds and years fields are not supported: remove them (a command named like a field is written with its path, ./mon)", err)
	}
	return err
}

// extraTimeFields counts the time-like words that start rest, the text
// after a line's 5 time fields: 0 when its first word is a command. A bare
// name (mon, jan, L, FRIL: no digit, star, list or range) is a command, as
// cron runs it: a program may be called so, a field written so is rare.
func extraTimeFields(rest string) int {
	n := 0
	for _, w := range strings.Fields(rest) {
		if !timeLike(w) || !strings.ContainsAny(w, "0123456789*?,-") {
			break
		}
		n++
	}
	return n
}

// allTimeLike reports whether every token looks like a cron time field
// (see timeLike).
func allTimeLike(toks []string) bool {
	for _, t := range toks {
		if !timeLike(t) {
			return false
		}
	}
	return true
}

// timeLike reports whether tok is written in the grammar of a cron time
// field: a list of items, each an atom or a range of two atoms, with an
// optional /STEP (digits); an atom is *, ?, a number, a 3-letter month or
// weekday name, or Quartz's L, W, LW, NUMBER-or-name L, NUMBER W and
// NUMBER-or-name #NUMBER. A word that only has digits or a * in it
// (5min.sh, */bin/x) is not time-like.
func timeLike(tok string) bool {
	for _, item := range strings.Split(tok, ",") {
		if base, step, ok := strings.Cut(item, "/"); ok {
			if !isDigits(step) {
				return false
			}
			item = base
		}
		lo, hi, isRange := strings.Cut(item, "-")
		if !timeAtom(lo) || isRange && !timeAtom(hi) {
			return false
		}
	}
	return true
}

func timeAtom(a string) bool {
	switch a {
	case "*", "?", "L", "W", "LW":
		return true
	}
	if v, nth, ok := strings.Cut(a, "#"); ok {
		return timeValue(v) && isDigits(nth)
	}
	if timeValue(a) {
		return true
	}
	v, last := strings.CutSuffix(a, "L")
	if w, ok := strings.CutSuffix(a, "W"); ok {
		return isDigits(w)
	}
	return last && timeValue(v)
}

// timeValue reports whether v is a number or a month or weekday name.
func timeValue(v string) bool {
	return isDigits(v) || len(v) == 3 && strings.Contains(timeNames, "|"+strings.ToLower(v)+"|")
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

const timeNames = "|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|sun|mon|tue|wed|thu|fri|sat|"
