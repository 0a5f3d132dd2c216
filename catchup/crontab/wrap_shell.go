package crontab

// shellOnly are the shell's builtins that are no program on PATH: a line
// that starts with one runs through the shell, as cron runs it; run as
// words, it was looked up in PATH and not found (exit 127 at every slot).
var shellOnly = map[string]bool{
	"exec": true, ".": true, "source": true, "eval": true, "cd": true, "ulimit": true, "umask": true,
	"export": true, "readonly": true, "set": true, "unset": true, "trap": true, "exit": true,
	"return": true, "shift": true, "wait": true, "command": true, "builtin": true, "alias": true, ":": true,
}
