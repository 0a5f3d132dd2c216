package redact

import (
	"path/filepath"
	"strings"
)

// This file finds the command a wrapper runs, whose program's options may
// hold a secret as they would run alone (docker exec db mysql -pX): a
// container's (docker, podman or nerdctl exec or run, docker compose exec
// or run, kubectl or oc exec after --) and a remote host's (ssh). Each
// wrapper's options are read as it reads them, so that a value of its own
// (docker run --name mysql -p3306:3306) is never taken for the command.

// flagSpec tells a program's options that take no value: the short ones'
// letters and the long ones' names (without --), separated by spaces.
// Every other option takes one (the next word, or glued: -p8080, --name=x).
// The tables are constant strings, not maps: a map would be built at
// every process's start, and only a masked wrapper reads them
// (docs/performance.md).
type flagSpec struct {
	short string
	long  string
}

// takesNoValue reports whether w is one of spec's long options that take no value.
func (spec flagSpec) takesNoValue(w string) bool {
	name, ok := strings.CutPrefix(w, "--")
	return ok && inWords(spec.long, name)
}

// inWords reports whether w is one of list's space-separated words.
func inWords(list, w string) bool {
	for f := range strings.FieldsSeq(list) {
		if f == w {
			return true
		}
	}
	return false
}

// docker's global options that take a value (docker --config DIR login).
const dockerGlobal = `--config -c --context -H --host -l --log-level --tlscacert --tlscert --tlskey --url
	--connection --identity --root --runroot --storage-driver`

var (
	dockerExec = flagSpec{"dit", "detach interactive tty privileged help"}
	dockerRun  = flagSpec{"ditPq", `rm detach interactive tty init privileged read-only publish-all quiet
		sig-proxy no-healthcheck oom-kill-disable disable-content-trust help replace rmi`}
	composeExec = flagSpec{"dTit", "detach no-TTY no-tty privileged interactive tty help"}
	composeRun  = flagSpec{"dTitP", `detach rm no-deps service-ports use-aliases no-TTY no-tty interactive tty
		build remove-orphans quiet-pull publish-all help`}
	// ssh's options that take no value (OpenSSH 9).
	sshSpec = flagSpec{"46AaCfGgKkMNnqsTtVvXxYy", ""}
	// docker compose's own options that take no value.
	composeOwn = flagSpec{"", "verbose dry-run compatibility all-resources"}
)

// wrapped is the index in words of the first word of the command that the
// program at words[p] runs, or -1 when it is no wrapper (or runs none).
func wrapped(words []string, p int) int {
	at := func(i int, w string) bool { return i < len(words) && unquote(words[i]) == w }
	switch filepath.Base(unquote(words[p])) {
	case "docker", "podman", "nerdctl":
		i := p + 1
		for i < len(words) && strings.HasPrefix(words[i], "-") { // global options
			if inWords(dockerGlobal, words[i]) {
				i++
			}
			i++
		}
		if at(i, "container") {
			i++
		}
		switch {
		case at(i, "exec"):
			return operand(words, i+1, dockerExec, 1)
		case at(i, "run"):
			return operand(words, i+1, dockerRun, 1)
		case at(i, "compose"):
			return compose(words, i+1)
		}
	case "docker-compose", "podman-compose":
		return compose(words, p+1)
	case "kubectl", "oc":
		if at(p+1, "exec") {
			for i := p + 2; i < len(words); i++ {
				if words[i] == "--" {
					return index(i+1, words)
				}
			}
		}
	case "ssh":
		return operand(words, p+1, sshSpec, 1)
	}
	return -1
}

// compose is where docker compose's exec or run (at words[i], after its
// own options) runs its command: after the service.
func compose(words []string, i int) int {
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		if !strings.Contains(words[i], "=") && !composeOwn.takesNoValue(words[i]) {
			i++ // -f FILE, -p PROJECT, --env-file FILE, --profile P
		}
		i++
	}
	switch {
	case i < len(words) && unquote(words[i]) == "exec":
		return operand(words, i+1, composeExec, 1)
	case i < len(words) && unquote(words[i]) == "run":
		return operand(words, i+1, composeRun, 1)
	}
	return -1
}

// operand is the index of what follows the first n words after the options
// (read as spec has them) that start at words[i]: the command after the
// container, image, service or host. -- ends the options.
func operand(words []string, i int, spec flagSpec, n int) int {
	for ; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			return index(i+1+n, words)
		case strings.HasPrefix(w, "--"):
			if !strings.Contains(w, "=") && !spec.takesNoValue(w) {
				i++ // --name X
			}
		case len(w) > 1 && w[0] == '-':
			for j := 1; j < len(w); j++ {
				if strings.IndexByte(spec.short, w[j]) < 0 {
					if j == len(w)-1 {
						i++ // -u X, -itu X; else glued: -p8080
					}
					break
				}
			}
		default:
			return index(i+n, words)
		}
	}
	return -1
}

// index is i when words has a word there, else -1.
func index(i int, words []string) int {
	if i < len(words) {
		return i
	}
	return -1
}
