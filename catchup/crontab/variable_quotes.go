package crontab

import "strings"

// badlyQuotedVariable reports a line written as a variable whose quoted
// value envLine refuses (an unmatched quote, text after the closing one),
// and the variable's name: cronie reads such a line as neither a variable
// nor a job.
func badlyQuotedVariable(s string) (name string, ok bool) {
	n := 0
	for n < len(s) && (s[n] == '_' || 'A' <= s[n] && s[n] <= 'Z' || 'a' <= s[n] && s[n] <= 'z' ||
		n > 0 && '0' <= s[n] && s[n] <= '9') {
		n++
	}
	rest, found := strings.CutPrefix(strings.TrimLeft(s[n:], " \t"), "=")
	if n == 0 || !found {
		return "", false
	}
	rest = strings.TrimLeftFunc(rest, isSpace)
	if rest == "" || rest[0] != '"' && rest[0] != '\'' {
		return "", false
	}
	_, _, isVar := envLine(s)
	return s[:n], !isVar
}
