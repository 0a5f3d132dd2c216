package redact

import (
	"regexp"
	"strings"
	"sync"
)

// This file masks the password options of the OpenLDAP tools, Oracle's
// logons and htpasswd's batch mode, each only for its program (options.go).

// ldapOptions masks the OpenLDAP tools' -w X (-wX), the bind password,
// and ldappasswd's -a X (the old password) and -s X (the new one); -W and
// -y FILE hold none.
func ldapOptions(args, o []string, name string) {
	flags := []string{"-w"}
	if name == "ldappasswd" {
		flags = append(flags, "-a", "-s")
	}
	for _, f := range flags {
		valueOf(args, o, f, wholeValue)
		gluedValue(args, o, f, wholeValue)
	}
}

// oracleLogon is an Oracle logon USER/PASSWORD[@DB], or its password
// after a userid=/target=/catalog=/auxiliary= key: the user is a name (no
// /, @ or =: not a path, @script.sql, /nolog nor / as sysdba).
var oracleLogon = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^((?:userid=|target=|catalog=|auxiliary=)?[A-Za-z0-9_$#."]+/)([^@\s]+)(@.*)?$`)
})

// oracleLogons masks the password of each logon word of sqlplus, rman,
// expdp... (scott/***@db, userid=system/***@orcl), a shell reference kept.
func oracleLogons(args, o []string) {
	for i, a := range args {
		q, w := wordQuotes(a)
		m := oracleLogon().FindStringSubmatch(w)
		if m == nil || m[2] == Mask || (q != "'" && reference(m[2])) {
			continue
		}
		o[i] = q + m[1] + Mask + m[3] + q
	}
}

// htpasswdBatch masks htpasswd's password when -b gives it on the command
// line: the last of FILE USER PASSWORD (-n: USER PASSWORD). -C and -r take
// a value.
func htpasswdBatch(args, o []string) {
	batch, show, i := false, false, 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		batch = batch || strings.Contains(args[i], "b")
		show = show || strings.Contains(args[i], "n")
		if last := args[i][len(args[i])-1]; last == 'C' || last == 'r' {
			i++
		}
	}
	want := 2
	if show {
		want = 1
	}
	if batch && i+want < len(args) {
		o[i+want] = wholeValue(args[i+want])
	}
}
