package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// daemonLinePing is a daemon line's monitor URL, found where the line's
// catchup run finds it under cron: its --ping, else its --ping-file (read
// as run reads it, trusted as run trusts it; a relative path from the
// line's home, where cron starts that catchup run), else the crontab's
// CATCHUP_PING_URL= line above it (env, the line's variables in order:
// the last one wins, as in cron). "" is no monitor. A ping file that
// cannot be read, or a URL that is not one, refuses the line, as an
// invalid --ping does: the daemon would otherwise run the line's jobs
// with no ping, and the monitor would say nothing of why. A ping file other
// users can read, or in a directory that lets another user replace it, is
// used, and warn says so (pingFileExposed, pingFileSwappable), as run does.
func daemonLinePing(flag, file, home string, env []string, warn func(string)) (string, error) {
	const notURL = "not an http:// or https:// URL with a host (its text is not shown: it may hold a token)"
	if flag != "" {
		if !isPingURL(flag) {
			hint := ""
			if strings.Contains(flag, "$") {
				hint = "; the daemon reads a line's flags itself, with no shell to expand a variable: write the URL"
			}
			return "", fmt.Errorf("invalid --ping: %s%s", notURL, hint)
		}
		return flag, nil
	}
	if file != "" {
		if !filepath.IsAbs(file) {
			file = filepath.Join(home, file)
		}
		b, warnings, err := readPingFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("--ping-file %s: %w; fix: name the file holding the monitor's URL (a relative path starts from the line's home, %s)", file, err, home)
		}
		if err != nil {
			return "", fmt.Errorf("--ping-file %s: %w", file, err)
		}
		u, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		if u = strings.TrimSpace(u); !isPingURL(u) {
			return "", fmt.Errorf("--ping-file %s: its first line is %s", file, notURL)
		}
		for _, w := range warnings {
			if warn != nil {
				warn(w)
			}
		}
		return u, nil
	}
	url := ""
	for _, kv := range env {
		if k, v, _ := cutEnv(kv); k == "CATCHUP_PING_URL" {
			url = v
		}
	}
	if url != "" && !isPingURL(url) {
		return "", fmt.Errorf("CATCHUP_PING_URL (the crontab's, above the line) is %s", notURL)
	}
	return url, nil
}
