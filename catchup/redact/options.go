package redact

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// This file masks the options that are a password only for their program
// (program.go finds it, wrappers.go the program a wrapper runs): each rule
// names its programs, so that the same letter elsewhere is left (-p 8080 of
// docker run, ssh -p 22, cp -P, sort -u).

// programOptions masks, in out, the secrets among the options of the
// program at words[p].
func programOptions(words, out []string, p int, quoted bool) {
	args := words[p+1:]
	o := out[p+1:]
	switch name := filepath.Base(unquote(words[p])); name {
	case "mysql", "mariadb", "mysqldump", "mysqladmin", "mariadb-dump":
		gluedValue(args, o, "-p", wholeValue) // -p alone asks for it; -p X is a database
	case "7z", "7za", "7zr", "7zz":
		gluedValue(args, o, "-p", wholeValue)
	case "rar", "unrar":
		gluedValue(args, o, "-p", wholeValue)
		gluedValue(args, o, "-hp", wholeValue)
	case "zip", "unzip", "zipcloak":
		valueOf(args, o, "-P", wholeValue)
		gluedValue(args, o, "-P", wholeValue)
	case "sshpass": // its options, up to the command it runs
		for i := 0; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			switch w := args[i]; {
			case w == "-p" && i+1 < len(args):
				i++
				o[i] = wholeValue(args[i])
			case strings.HasPrefix(w, "-p") && !reference(w[2:]):
				o[i] = "-p" + Mask
			case w == "-f" || w == "-d" || w == "-P":
				i++
			}
		}
	case "mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles":
		valueOf(args, o, "-p", notAnOption) // -p with no value (another option next) asks for it
		gluedValue(args, o, "-p", wholeValue)
	case "lftp": // -u USER,PASSWORD
		valueOf(args, o, "-u", lftpUser)
		valueOf(args, o, "--user", lftpUser)
		gluedValue(args, o, "-u", lftpUser)
	case "ncftp", "ncftpput", "ncftpget", "ncftpls", "ncftpbatch":
		valueOf(args, o, "-p", wholeValue)
	case "redis-cli": // -a X, --pass X
		valueOf(args, o, "-a", wholeValue)
		valueOf(args, o, "--pass", wholeValue)
	case "ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapmodrdn", "ldappasswd", "ldapwhoami", "ldapcompare", "ldapexop":
		ldapOptions(args, o, name) // options_more.go
	case "sqlplus", "rman", "expdp", "impdp", "exp", "imp", "sqlldr", "dgmgrl":
		oracleLogons(args, o)
	case "vault", "bao": // vault login TOKEN: tokens.go
		vaultLogin(args, o)
	case "htpasswd":
		htpasswdBatch(args, o)
	case "docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "helm", "az":
		if subcommand(args, "login") { // docker login -p X; helm registry login -p X; az login -p X
			gluedValue(args, o, "-p", wholeValue)
			valueOf(args, o, "-p", wholeValue)
		}
	case "openssl": // -passin pass:X (not env:VAR, file:PATH); enc's -k X, -K HEX
		for _, f := range []string{"-pass", "-passin", "-passout", "-password"} {
			valueOf(args, o, f, passArg)
		}
		if len(args) > 0 && (args[0] == "enc" || cipherName().MatchString(args[0])) {
			valueOf(args, o, "-k", wholeValue)
			valueOf(args, o, "-K", wholeValue)
		}
	case "smbclient", "rpcclient", "smbcacls", "smbcquotas", "smbget", "smbtree", "net": // -U USER%PASSWORD
		for _, f := range []string{"-U", "--user", "--username"} {
			valueOf(args, o, f, samba)
		}
		gluedValue(args, o, "-U", samba)
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		for i := 0; i+1 < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			if shellC(args[i]) {
				o[i+1] = shellLine(args[i+1], quoted)
				break
			}
		}
	}
}

// gluedValue masks, with mask, the value glued to flag (-pX), never a
// next word; -p- (rar's "no password") holds none.
func gluedValue(args, out []string, flag string, mask func(string) string) {
	for i, w := range args {
		q, w := wordQuotes(w)
		if v, ok := strings.CutPrefix(w, flag); ok && v != "" && v != "-" {
			out[i] = q + flag + mask(v) + q
		}
	}
}

// valueOf masks, with mask, the value of flag: the next word (-P X,
// --user X), or after = to a long one (--user=X). -- ends the options.
func valueOf(args, out []string, flag string, mask func(string) string) {
	for i := 0; i < len(args); i++ {
		switch w := args[i]; {
		case w == "--":
			return
		case w == flag && i+1 < len(args):
			i++
			out[i] = mask(args[i])
		case strings.HasPrefix(flag, "--"):
			if q, w := wordQuotes(w); strings.HasPrefix(w, flag+"=") {
				out[i] = q + flag + "=" + mask(w[len(flag)+1:]) + q
			}
		}
	}
}

// wordQuotes is a word quoted whole ('-Uu%PW') as its quote and its text,
// else "" and the word.
func wordQuotes(w string) (string, string) {
	if len(w) >= 2 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		return w[:1], w[1 : len(w)-1]
	}
	return "", w
}

// notAnOption is v masked as a whole, unless it is another option: a
// password flag given no value, which asks for the password.
func notAnOption(v string) string {
	if strings.HasPrefix(v, "-") {
		return v
	}
	return wholeValue(v)
}

// lftpUser is lftp's USER,PASSWORD with its password masked; a user alone
// holds none.
func lftpUser(v string) string {
	return afterColon(v, func(s string) int { return strings.IndexByte(s, ',') })
}

// passArg is openssl's pass phrase argument with its password masked:
// pass:***; env:VAR, file:PATH, fd:N and stdin hold none.
func passArg(v string) string {
	return afterColon(v, func(s string) int {
		if strings.HasPrefix(s, "pass:") {
			return 4
		}
		return -1
	})
}

// samba is a Samba tool's USER%PASSWORD with its password masked.
func samba(v string) string {
	return afterColon(v, func(s string) int { return strings.IndexByte(s, '%') })
}

// subcommand reports whether args' subcommand is sub: its first word
// that is no option (nor a docker global option's value), or the second
// after registry (helm registry login).
func subcommand(args []string, sub string) bool {
	var subs []string
	for i := 0; i < len(args) && len(subs) < 2; i++ {
		switch w := args[i]; {
		case inWords(dockerGlobal, w):
			i++
		case !strings.HasPrefix(w, "-"):
			subs = append(subs, w)
		}
	}
	return len(subs) > 0 && (subs[0] == sub || subs[0] == "registry" && len(subs) > 1 && subs[1] == sub)
}

// cipherName is an openssl cipher command (openssl aes-256-cbc -k X), whose
// -k is a password as enc's is.
var cipherName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:aes|aria|bf|blowfish|camellia|cast5?|chacha20|des3?|desx|idea|rc[245]|seed|sm4)(?:-[A-Za-z0-9-]+)?$`)
})
