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
// letters and the long ones. Every other option takes one (the next word,
// or glued: -p8080, --name=x).
type flagSpec struct {
	short string
	long  map[string]bool
}

func longFlags(names string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(names) {
		m["--"+n] = true
	}
	return m
}

var (
	// docker's global options that take a value (docker --config DIR login).
	dockerGlobal = map[string]bool{"--config": true, "-c": true, "--context": true, "-H": true, "--host": true,
		"-l": true, "--log-level": true, "--tlscacert": true, "--tlscert": true, "--tlskey": true, "--url": true,
		"--connection": true, "--identity": true, "--root": true, "--runroot": true, "--storage-driver": true}
	dockerExec = flagSpec{"dit", longFlags("detach interactive tty privileged help")}
	dockerRun  = flagSpec{"ditPq", longFlags(`rm detach interactive tty init privileged read-only publish-all quiet
		sig-proxy no-healthcheck oom-kill-disable disable-content-trust help replace rmi`)}
	composeExec = flagSpec{"dTit", longFlags("detach no-TTY no-tty privileged interactive tty help")}
	composeRun  = flagSpec{"dTitP", longFlags(`detach rm no-deps service-ports use-aliases no-TTY no-tty interactive tty
		build remove-orphans quiet-pull publish-all help`)}
	// ssh's options that take no value (OpenSSH 9).
	sshSpec = flagSpec{"46AaCfGgKkMNnqsTtVvXxYy", nil}
)

// wrapped is the index in words of the first word of the command that the
// program at words[p] runs, or -1 when it is no wrapper (or runs none).
func wrapped(words []string, p int) int {
	at := func(i int, w string) bool { return i < len(words) && unquote(words[i]) == w }
	switch filepath.Base(unquote(words[p])) {
	case "docker", "podman", "nerdctl":
		i := p + 1
		for i < len(words) && strings.HasPrefix(words[i], "-") { // global options
			if dockerGlobal[words[i]] {
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
		if !strings.Contains(words[i], "=") && !longFlags("verbose dry-run compatibility all-resources")[words[i]] {
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
			if !strings.Contains(w, "=") && !spec.long[w] {
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
